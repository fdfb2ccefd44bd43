// Benchmark: the WASM race table — each kernel in WebAssembly and TypeScript on generated inputs of several sizes.
// Usage: npx tsx scripts/bench/race.ts [--quick]
import { readFileSync } from 'node:fs'
import { ensureWasmBuilt } from '../build-wasm.js'
import { generateBytes, RACE_KERNELS, runRace } from '../../src/engines/race/index.js'

const quick = process.argv.includes('--quick')
const sizes = quick ? [64 * 1024] : [4 * 1024, 64 * 1024, 1024 * 1024, 4 * 1024 * 1024]
const rounds = quick ? 9 : 21
const wasm = readFileSync(await ensureWasmBuilt())

const fmt = (n: number) => n.toFixed(3).padStart(8)
console.log(`WASM race: median (min–max) ns/byte over ${rounds} alternating rounds, after one untimed warm-up run each`)
console.log('bytes      kernel   |     wasm ns/B (min–max)        |       ts ns/B (min–max)        | winner  speedup | agreed')
let disagreements = 0
for (const size of sizes) {
  const result = runRace({
    bytes: generateBytes(size, 1),
    rounds,
    kernels: RACE_KERNELS,
    wasm,
    timer: process.hrtime.bigint,
    expired: () => false,
  })
  for (const k of result.kernels) {
    const cell = (impl: 'wasm' | 'ts') => {
      const r = k.implementations.find((i) => i.implementation === impl)!
      return `${fmt(r.median_ns_per_byte)} (${r.min_ns_per_byte.toFixed(3)}–${r.max_ns_per_byte.toFixed(3)})`.padEnd(30)
    }
    if (!k.agreed) disagreements++
    console.log(
      `${String(size).padEnd(10)} ${k.kernel.padEnd(8)} | ${cell('wasm')} | ${cell('ts')} | ${String(k.winner).padEnd(6)} ${k.speedup === null ? '   -' : k.speedup.toFixed(2).padStart(6) + '×'} | ${k.agreed ? 'yes' : 'NO'}`,
    )
  }
  console.log(`${String(size).padEnd(10)} overall  | geomean wasm ${result.geomean_ns_per_byte.wasm?.toFixed(3)} ns/B, ts ${result.geomean_ns_per_byte.ts?.toFixed(3)} ns/B → winner ${result.winner}`)
}
if (disagreements > 0) {
  console.error(`${disagreements} kernel(s) disagreed between implementations: that is a bug`)
  process.exitCode = 1
}
