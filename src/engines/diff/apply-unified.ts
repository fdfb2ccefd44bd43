// Applies a unified diff to a text, exactly (no fuzz, no offsets): the check that a diff we produce does what it says.
import { splitLines } from './tokenize.js'

export class PatchError extends Error {
  override name = 'PatchError'
}

interface ParsedHunk {
  aStart: number
  aCount: number
  lines: Array<{ kind: ' ' | '-' | '+'; text: string }>
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

export function parseUnified(diff: string): ParsedHunk[] {
  const rows = diff.split('\n')
  if (rows[rows.length - 1] === '') rows.pop()
  const hunks: ParsedHunk[] = []
  let r = 0
  while (r < rows.length && !rows[r]!.startsWith('@@')) r++
  while (r < rows.length) {
    const header = HUNK_HEADER.exec(rows[r]!)
    if (!header) throw new PatchError(`line ${r + 1}: expected a hunk header, got ${JSON.stringify(rows[r])}`)
    const aCount = header[2] === undefined ? 1 : Number(header[2])
    const bCount = header[4] === undefined ? 1 : Number(header[4])
    const hunk: ParsedHunk = { aStart: Number(header[1]), aCount, lines: [] }
    let aLeft = aCount
    let bLeft = bCount
    r++
    while (aLeft > 0 || bLeft > 0) {
      const row = rows[r]
      if (row === undefined) throw new PatchError('the diff ends inside a hunk')
      const kind = row[0]
      if (kind === ' ') (aLeft--, bLeft--)
      else if (kind === '-') aLeft--
      else if (kind === '+') bLeft--
      else throw new PatchError(`line ${r + 1}: unexpected ${JSON.stringify(row)} inside a hunk`)
      if (aLeft < 0 || bLeft < 0) throw new PatchError(`line ${r + 1}: the hunk is longer than its header says`)
      let text = row.slice(1)
      r++
      if (rows[r]?.startsWith('\\')) r++
      else text += '\n'
      hunk.lines.push({ kind, text })
    }
    hunks.push(hunk)
  }
  return hunks
}

export function applyUnified(original: string, diff: string): string {
  const a = splitLines(original)
  const out: string[] = []
  let pos = 0
  for (const hunk of parseUnified(diff)) {
    const start = hunk.aCount === 0 ? hunk.aStart : hunk.aStart - 1
    if (start < pos || start > a.length) throw new PatchError(`hunk at line ${hunk.aStart} is out of order or past the end`)
    while (pos < start) out.push(a[pos++]!)
    for (const line of hunk.lines) {
      if (line.kind === '+') {
        out.push(line.text)
        continue
      }
      if (a[pos] !== line.text) {
        throw new PatchError(`line ${pos + 1} is ${JSON.stringify(a[pos] ?? '<end of file>')}, the hunk expects ${JSON.stringify(line.text)}`)
      }
      if (line.kind === ' ') out.push(line.text)
      pos++
    }
  }
  while (pos < a.length) out.push(a[pos++]!)
  return out.join('')
}
