// Interns the lines of two texts as integer ids without cutting them into strings: each text is encoded once,
// every line is hashed in place, an open-addressing table maps hashes to ids, and bytes are compared on hash hits.

/** The lines of a text by index, each with its "\n"; a line becomes a string only when asked for. */
export interface LineList {
  readonly length: number
  at(index: number): string | undefined
}

export interface InternedLines {
  a: Int32Array
  b: Int32Array
  aLines: LineList
  bLines: LineList
}

type Encoding = 'utf8' | 'utf16le'

const isWellFormed = (text: string): boolean =>
  (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed.call(text)

/** Byte offsets of line starts, plus the total length as the last entry. */
function lineStarts(bytes: Buffer, encoding: Encoding): Int32Array {
  const ends: number[] = []
  if (encoding === 'utf8') {
    // "\n" is never part of a multi-byte UTF-8 sequence, so a byte search is exact.
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) ends.push(at + 1)
  } else {
    for (let k = 0; k + 1 < bytes.length; k += 2) if (bytes[k] === 10 && bytes[k + 1] === 0) ends.push(k + 2)
  }
  const trailing = ends.length === 0 ? bytes.length > 0 : ends[ends.length - 1]! < bytes.length
  const count = ends.length + (trailing ? 1 : 0)
  const starts = new Int32Array(count + 1)
  for (let i = 0; i < ends.length; i++) starts[i + 1] = ends[i]!
  starts[count] = bytes.length
  return starts
}

interface Table {
  mask: number
  /** id + 1 per slot; 0 = empty. */
  slots: Int32Array
  hash: Int32Array
  /** Where each id's first line lives: side (0 = a, 1 = b) and byte range. */
  side: Uint8Array
  start: Int32Array
  end: Int32Array
  size: number
}

function internSide(table: Table, sides: readonly Buffer[], side: number, starts: Int32Array, out: Int32Array): void {
  const bytes = sides[side]!
  const { mask, slots, hash, start: idStart, end: idEnd, side: idSide } = table
  for (let line = 0; line < out.length; line++) {
    const start = starts[line]!
    const end = starts[line + 1]!
    let h = 0x811c9dc5
    for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k]!, 16777619)
    let slot = h & mask
    let id = -1
    for (;;) {
      const found = slots[slot]! - 1
      if (found < 0) break
      if (hash[found] === h && idEnd[found]! - idStart[found]! === end - start) {
        if (sameBytes(bytes, start, sides[idSide[found]!]!, idStart[found]!, end - start)) {
          id = found
          break
        }
      }
      slot = (slot + 1) & mask
    }
    if (id < 0) {
      id = table.size++
      hash[id] = h
      idSide[id] = side
      idStart[id] = start
      idEnd[id] = end
      slots[slot] = id + 1
    }
    out[line] = id
  }
}

function sameBytes(x: Uint8Array, xs: number, y: Uint8Array, ys: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (x[xs + k] !== y[ys + k]) return false
  return true
}

export function internLines(aText: string, bText: string): InternedLines {
  // UTF-8 halves the bytes of ASCII-heavy text but maps every lone surrogate to U+FFFD; such text goes as UTF-16,
  // and both sides share one encoding so that equal lines have equal bytes.
  const encoding: Encoding = isWellFormed(aText) && isWellFormed(bText) ? 'utf8' : 'utf16le'
  const aBytes = Buffer.from(aText, encoding)
  const bBytes = Buffer.from(bText, encoding)
  const aStarts = lineStarts(aBytes, encoding)
  const bStarts = lineStarts(bBytes, encoding)
  const na = aStarts.length - 1
  const nb = bStarts.length - 1
  let capacity = 16
  while (capacity < 2 * (na + nb)) capacity <<= 1
  const table: Table = {
    mask: capacity - 1,
    slots: new Int32Array(capacity),
    hash: new Int32Array(na + nb),
    side: new Uint8Array(na + nb),
    start: new Int32Array(na + nb),
    end: new Int32Array(na + nb),
    size: 0,
  }
  const sides = [aBytes, bBytes]
  const a = new Int32Array(na)
  const b = new Int32Array(nb)
  internSide(table, sides, 0, aStarts, a)
  internSide(table, sides, 1, bStarts, b)
  const listOf = (bytes: Buffer, starts: Int32Array): LineList => ({
    length: starts.length - 1,
    at: (i) => (i >= 0 && i < starts.length - 1 ? bytes.toString(encoding, starts[i]!, starts[i + 1]!) : undefined),
  })
  return { a, b, aLines: listOf(aBytes, aStarts), bLines: listOf(bBytes, bStarts) }
}
