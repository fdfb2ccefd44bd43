// Text and JSON diffs as the /diff operation reports them: counts, hunks, a unified diff, an RFC 6902 patch.
import { canonicalPretty, type JsonValue } from '../digest/canonical-json.js'
import { applyUnified, PatchError } from './apply-unified.js'
import { buildHunks, formatUnified, type Hunk } from './hunks.js'
import { applyJsonPatch, diffJson, jsonEqual, type JsonPatchOperation } from './json-patch.js'
import { diffSequences, type Change, type SequenceDiffOptions } from './myers.js'
import { internLines } from './line-ids.js'
import { intern, tokenize, type TextUnit } from './tokenize.js'

export type DiffMode = TextUnit | 'json'

export interface DiffReport {
  /** What `added`, `removed` and the hunks count: lines, word/whitespace tokens or code points. */
  unit: 'line' | 'token' | 'char'
  added: number
  removed: number
  hunks: Hunk[]
  /** Line-based unified diff of a → b (of the pretty-printed values in json mode); empty when they are equal. */
  unified: string
  /** False when the search was cut short by its work budget: the diff is correct but may not be the shortest. */
  minimal: boolean
  /** The unified diff was applied to `a` (and the patch, in json mode) and gave `b` exactly. */
  verified: boolean
  patch?: JsonPatchOperation[]
}

const UNIT_NAME = { lines: 'line', words: 'token', chars: 'char' } as const

function diffTokens(a: readonly string[], b: readonly string[], options?: SequenceDiffOptions) {
  const ids = intern(a, b)
  return diffSequences(ids.a, ids.b, options)
}

function counts(changes: readonly Change[]) {
  let added = 0
  let removed = 0
  for (const c of changes) {
    added += c.bEnd - c.bStart
    removed += c.aEnd - c.aStart
  }
  return { added, removed }
}

function unifiedAppliesTo(a: string, unified: string, b: string): boolean {
  try {
    return applyUnified(a, unified) === b
  } catch (err) {
    if (err instanceof PatchError) return false
    throw err
  }
}

/** Rebuilds b from a's tokens and the changes: the check for word and char diffs. */
function rebuild(a: readonly string[], b: readonly string[], changes: readonly Change[]): string {
  const out: string[] = []
  let i = 0
  for (const c of changes) {
    while (i < c.aStart) out.push(a[i++]!)
    for (let j = c.bStart; j < c.bEnd; j++) out.push(b[j]!)
    i = c.aEnd
  }
  while (i < a.length) out.push(a[i++]!)
  return out.join('')
}

export function diffText(a: string, b: string, unit: TextUnit, context: number, options?: SequenceDiffOptions): DiffReport {
  const { a: aIds, b: bIds, aLines, bLines } = internLines(a, b)
  const lineDiff = diffSequences(aIds, bIds, options)
  const unified = formatUnified(aLines, bLines, lineDiff.changes, context)
  let verified = unifiedAppliesTo(a, unified, b)
  if (unit === 'lines') {
    return {
      unit: 'line',
      ...counts(lineDiff.changes),
      hunks: buildHunks(aLines, bLines, lineDiff.changes, context),
      unified,
      minimal: lineDiff.minimal,
      verified,
    }
  }
  const aTokens = tokenize(a, unit)
  const bTokens = tokenize(b, unit)
  const tokenDiff = diffTokens(aTokens, bTokens, options)
  verified &&= rebuild(aTokens, bTokens, tokenDiff.changes) === b
  return {
    unit: UNIT_NAME[unit],
    ...counts(tokenDiff.changes),
    hunks: buildHunks(aTokens, bTokens, tokenDiff.changes, context),
    unified,
    minimal: tokenDiff.minimal && lineDiff.minimal,
    verified,
  }
}

/** JSON values: an RFC 6902 patch, plus a line diff of both values printed canonically (sorted keys, 2-space indent). */
export function diffJsonValues(a: JsonValue, b: JsonValue, context: number, options?: SequenceDiffOptions): DiffReport {
  const report = diffText(canonicalPretty(a), canonicalPretty(b), 'lines', context, options)
  const patch = diffJson(a, b, options)
  report.verified &&= jsonEqual(applyJsonPatch(a, patch), b)
  report.patch = patch
  return report
}
