// Benchmark: our line diff (Myers, linear space) against jsdiff's diffLines on the same large inputs, in one run.
// Usage: npx tsx scripts/bench/diff.ts [--quick]
import { diffLines } from 'diff'
import { diffSequences } from '../../src/engines/diff/myers.js'
import { internLines } from '../../src/engines/diff/line-ids.js'
import { diffText } from '../../src/engines/diff/diff.js'

/** xorshift32: the same inputs on every run. */
function rng(seed: number) {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 0x100000000
  }
}

/** Source-like text: indented statements, with the blank lines and closing braces real files repeat. */
function makeText(lines: number, random: () => number): string[] {
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const r = random()
    if (r < 0.1) out.push('\n')
    else if (r < 0.18) out.push('}\n')
    else out.push(`${'  '.repeat(Math.floor(random() * 4))}const v${Math.floor(random() * 1e6)} = f(${i}, ${Math.floor(random() * 100)})\n`)
  }
  return out
}

/** Scattered edits: delete, insert or modify single lines at random places. */
function edit(lines: string[], edits: number, random: () => number): string[] {
  const out = [...lines]
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * out.length)
    const kind = random()
    if (kind < 1 / 3) out.splice(at, 1)
    else if (kind < 2 / 3) out.splice(at, 0, `inserted ${e} ${Math.floor(random() * 1e9)}\n`)
    else out[at] = `modified ${e} ${Math.floor(random() * 1e9)}\n`
  }
  return out
}

/** Median and best (minimum) of repeated runs after a warm-up; the best is the least disturbed by other load. */
function timeIt<T>(fn: () => T, minRuns: number, minMs: number): { ms: number; best: number; runs: number; result: T } {
  let result = fn() // warm-up
  const samples: number[] = []
  const start = performance.now()
  while (samples.length < minRuns || performance.now() - start < minMs) {
    const t0 = performance.now()
    result = fn()
    samples.push(performance.now() - t0)
    if (samples.length >= 50) break
  }
  samples.sort((x, y) => x - y)
  return { ms: samples[Math.floor(samples.length / 2)]!, best: samples[0]!, runs: samples.length, result }
}

function ours(a: string, b: string): number {
  const ids = internLines(a, b)
  let edits = 0
  for (const c of diffSequences(ids.a, ids.b).changes) edits += c.aEnd - c.aStart + (c.bEnd - c.bStart)
  return edits
}

function jsdiff(a: string, b: string): number {
  let edits = 0
  for (const part of diffLines(a, b)) if (part.added || part.removed) edits += part.count ?? 0
  return edits
}

const quick = process.argv.includes('--quick')
const cases = quick
  ? [{ lines: 10_000, edits: 100 }]
  : [
      { lines: 10_000, edits: 100 },
      { lines: 30_000, edits: 300 },
      { lines: 100_000, edits: 200 },
      { lines: 100_000, edits: 1_000 },
    ]

console.log('line diff: ours (Myers, linear space) vs jsdiff diffLines on the same inputs, in this run')
console.log('times in ms: median / best of repeated runs after one warm-up; ratio = jsdiff ÷ ours')
console.log('lines    edits |   ours med/best  | jsdiff med/best  | ratio med  best | edits ours / jsdiff     | ours+unified+verify')
let worst = Number.POSITIVE_INFINITY
let worstBest = Number.POSITIVE_INFINITY
let mismatch = false
for (const { lines, edits } of cases) {
  const random = rng(lines * 31 + edits)
  const base = makeText(lines, random)
  const a = base.join('')
  const b = edit(base, edits, random).join('')
  const mine = timeIt(() => ours(a, b), 5, 1500)
  const theirs = timeIt(() => jsdiff(a, b), 3, 1500)
  const full = timeIt(() => diffText(a, b, 'lines', 3), 3, 500)
  const ratio = theirs.ms / mine.ms
  const ratioBest = theirs.best / mine.best
  worst = Math.min(worst, ratio)
  worstBest = Math.min(worstBest, ratioBest)
  if (mine.result !== theirs.result) mismatch = true
  const pair = (t: { ms: number; best: number }) => `${t.ms.toFixed(1).padStart(7)} / ${t.best.toFixed(1).padEnd(6)}`
  console.log(
    `${String(lines).padStart(7)} ${String(edits).padStart(6)} | ${pair(mine)} | ${pair(theirs)} | ${ratio.toFixed(1).padStart(5)}× ${ratioBest.toFixed(1).padStart(5)}× | ${String(mine.result).padStart(6)} / ${String(theirs.result).padEnd(6)} ${mine.result === theirs.result ? 'same     ' : 'DIFFERENT'} | ${full.ms.toFixed(1)} ms${full.result.verified ? '' : ' (NOT VERIFIED)'}`,
  )
}
console.log(
  `slowest ratio: ${worst.toFixed(1)}× by median, ${worstBest.toFixed(1)}× by best (target ≥ 2×: ${worst >= 2 ? 'met' : worstBest >= 2 ? 'met by best, not by median' : 'NOT met'}); edit counts ${mismatch ? 'DIFFER' : 'identical'}`,
)
if (mismatch) process.exitCode = 1
