import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { diffSequences, type Change } from './myers.js'

/** Length of a longest common subsequence, by the textbook dynamic programme. */
function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const row = new Int32Array(b.length + 1)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(up, row[j - 1]!)
      diagonal = up
    }
  }
  return row[b.length]!
}

function apply(a: Int32Array, b: Int32Array, changes: Change[]): number[] {
  const out: number[] = []
  let i = 0
  for (const c of changes) {
    while (i < c.aStart) out.push(a[i++]!)
    out.push(...b.subarray(c.bStart, c.bEnd))
    i = c.aEnd
  }
  while (i < a.length) out.push(a[i++]!)
  return out
}

const editCount = (changes: Change[]) => changes.reduce((n, c) => n + (c.aEnd - c.aStart) + (c.bEnd - c.bStart), 0)
const seq = (alphabet: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: alphabet - 1 }), { maxLength: max }).map((xs) => Int32Array.from(xs))

describe('diffSequences', () => {
  it('finds nothing to do for equal sequences, including empty ones', () => {
    expect(diffSequences(new Int32Array(), new Int32Array()).changes).toEqual([])
    expect(diffSequences(Int32Array.of(1, 2, 3), Int32Array.of(1, 2, 3)).changes).toEqual([])
  })

  it('handles one side empty', () => {
    expect(diffSequences(new Int32Array(), Int32Array.of(1, 2)).changes).toEqual([{ aStart: 0, aEnd: 0, bStart: 0, bEnd: 2 }])
    expect(diffSequences(Int32Array.of(1, 2), new Int32Array()).changes).toEqual([{ aStart: 0, aEnd: 2, bStart: 0, bEnd: 0 }])
  })

  it("gives Myers' paper example (ABCABBA → CBABAC) an edit distance of 5", () => {
    const ids = (s: string) => Int32Array.from(s, (c) => c.charCodeAt(0))
    const a = ids('ABCABBA')
    const b = ids('CBABAC')
    const { changes, minimal } = diffSequences(a, b)
    expect(minimal).toBe(true)
    expect(editCount(changes)).toBe(5)
    expect(apply(a, b, changes)).toEqual(Array.from(b))
  })

  it('is correct and shortest on random pairs (checked against the LCS dynamic programme)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).chain((k) => fc.tuple(seq(k, 60), seq(k, 60))), ([a, b]) => {
        const { changes, minimal } = diffSequences(a, b)
        expect(apply(a, b, changes)).toEqual(Array.from(b))
        expect(minimal).toBe(true)
        expect(editCount(changes)).toBe(a.length + b.length - 2 * lcsLength(a, b))
        for (let k = 1; k < changes.length; k++) expect(changes[k]!.aStart).toBeGreaterThan(changes[k - 1]!.aEnd - 1)
      }),
      { numRuns: 400 },
    )
  })

  it('stays correct when the cost cap forces heuristic splits', () => {
    fc.assert(
      fc.property(fc.tuple(seq(4, 200), seq(4, 200)), ([a, b]) => {
        const { changes } = diffSequences(a, b, { tooExpensive: 2 })
        expect(apply(a, b, changes)).toEqual(Array.from(b))
      }),
      { numRuns: 200 },
    )
  })

  it('stays correct, and says it may not be minimal, when the work budget runs out', () => {
    const a = Int32Array.from({ length: 3000 }, (_, i) => (i * 7919) % 13)
    const b = Int32Array.from({ length: 3000 }, (_, i) => (i * 104729) % 13)
    const { changes, minimal } = diffSequences(a, b, { maxWork: 10_000 })
    expect(minimal).toBe(false)
    expect(apply(a, b, changes)).toEqual(Array.from(b))
    expect(diffSequences(a, b).minimal).toBe(true)
  })

  it('sets aside ids found on one side only without losing minimality', () => {
    const a = Int32Array.of(100, 1, 2, 101, 3, 102)
    const b = Int32Array.of(1, 200, 2, 3, 201)
    const { changes, minimal } = diffSequences(a, b)
    expect(minimal).toBe(true)
    expect(editCount(changes)).toBe(a.length + b.length - 2 * 3)
    expect(apply(a, b, changes)).toEqual(Array.from(b))
  })
})
