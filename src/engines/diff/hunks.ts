// Groups changes into hunks with context and renders them: structured hunks for any unit, unified diff text for lines.
import type { Change } from './myers.js'

/** Tokens by index: a string array, or lines cut from a text only when needed. */
export interface TokenList {
  readonly length: number
  at(index: number): string | undefined
}

export interface HunkPart {
  kind: 'context' | 'removed' | 'added'
  text: string
}

/** Ranges follow the unified-diff convention: 1-based start, or the unit before the range when the count is 0. */
export interface Hunk {
  a_start: number
  a_count: number
  b_start: number
  b_count: number
  header: string
  parts: HunkPart[]
}

interface HunkRange {
  aFrom: number
  aTo: number
  bFrom: number
  bTo: number
  changes: Change[]
}

/** Changes closer than 2 × context units share a hunk, as GNU diff does. */
export function groupChanges(changes: readonly Change[], aLength: number, context: number): HunkRange[] {
  const groups: HunkRange[] = []
  let current: HunkRange | null = null
  for (const change of changes) {
    if (current && change.aStart - current.changes[current.changes.length - 1]!.aEnd <= 2 * context) {
      current.changes.push(change)
      continue
    }
    if (current) groups.push(current)
    const lead = Math.min(context, change.aStart)
    current = { aFrom: change.aStart - lead, aTo: 0, bFrom: change.bStart - lead, bTo: 0, changes: [change] }
  }
  if (current) groups.push(current)
  for (const group of groups) {
    const last = group.changes[group.changes.length - 1]!
    const trail = Math.min(context, aLength - last.aEnd)
    group.aTo = last.aEnd + trail
    group.bTo = last.bEnd + trail
  }
  return groups
}

function range(from: number, count: number): string {
  if (count === 0) return `${from},0`
  if (count === 1) return `${from + 1}`
  return `${from + 1},${count}`
}

const headerOf = (g: HunkRange) => `@@ -${range(g.aFrom, g.aTo - g.aFrom)} +${range(g.bFrom, g.bTo - g.bFrom)} @@`

/** Walks a hunk: context before each change, the change's removals, then its additions, then trailing context. */
function walk(
  group: HunkRange,
  a: TokenList,
  b: TokenList,
  emit: (kind: HunkPart['kind'], token: string) => void,
): void {
  let i = group.aFrom
  for (const change of group.changes) {
    for (; i < change.aStart; i++) emit('context', a.at(i)!)
    for (let k = change.aStart; k < change.aEnd; k++) emit('removed', a.at(k)!)
    for (let k = change.bStart; k < change.bEnd; k++) emit('added', b.at(k)!)
    i = change.aEnd
  }
  for (; i < group.aTo; i++) emit('context', a.at(i)!)
}

export function buildHunks(
  a: TokenList,
  b: TokenList,
  changes: readonly Change[],
  context: number,
): Hunk[] {
  return groupChanges(changes, a.length, context).map((group) => {
    const parts: HunkPart[] = []
    walk(group, a, b, (kind, token) => {
      const last = parts[parts.length - 1]
      if (last && last.kind === kind) last.text += token
      else parts.push({ kind, text: token })
    })
    const aCount = group.aTo - group.aFrom
    const bCount = group.bTo - group.bFrom
    return {
      a_start: aCount === 0 ? group.aFrom : group.aFrom + 1,
      a_count: aCount,
      b_start: bCount === 0 ? group.bFrom : group.bFrom + 1,
      b_count: bCount,
      header: headerOf(group),
      parts,
    }
  })
}

const NO_NEWLINE = '\\ No newline at end of file\n'
const PREFIX = { context: ' ', removed: '-', added: '+' } as const

export interface UnifiedLabels {
  a: string
  b: string
}

/** A unified diff of two line lists (lines keep their "\n"); empty when they are equal. */
export function formatUnified(
  a: TokenList,
  b: TokenList,
  changes: readonly Change[],
  context: number,
  labels: UnifiedLabels = { a: 'a', b: 'b' },
): string {
  if (changes.length === 0) return ''
  const out: string[] = [`--- ${labels.a}\n+++ ${labels.b}\n`]
  for (const group of groupChanges(changes, a.length, context)) {
    out.push(headerOf(group), '\n')
    walk(group, a, b, (kind, line) => {
      out.push(PREFIX[kind], line)
      if (!line.endsWith('\n')) out.push('\n', NO_NEWLINE)
    })
  }
  return out.join('')
}
