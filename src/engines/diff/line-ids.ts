// Interns the lines of two texts as integer ids without cutting them into strings: one pass over each text's
// encoded bytes hashes every line in place, an open-addressing table maps hashes to ids, bytes are compared on hits.

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

const isWellFormed = (text: string): boolean =>
  (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed.call(text)

interface Encoded {
  bytes: Buffer
  encoding: 'utf8' | 'utf16le'
  /** Line i is bytes[starts[i], starts[i + 1]); `count + 1` entries. */
  starts: Int32Array
  count: number
}

function listOf(e: Encoded): LineList {
  return {
    length: e.count,
    at: (i) => (i >= 0 && i < e.count ? e.bytes.toString(e.encoding, e.starts[i]!, e.starts[i + 1]!) : undefined),
  }
}

export function internLines(aText: string, bText: string): InternedLines {
  // UTF-8 halves the bytes of ASCII-heavy text but maps every lone surrogate to U+FFFD; such text goes as UTF-16,
  // and both sides share one encoding so that equal lines have equal bytes.
  const encoding = isWellFormed(aText) && isWellFormed(bText) ? 'utf8' : 'utf16le'
  const unit = encoding === 'utf8' ? 1 : 2
  // Grown when half full.
  let capacity = 1 << 12
  let mask = capacity - 1
  let slots = new Int32Array(capacity) // id + 1; 0 = empty
  let idHash = new Int32Array(1024)
  let idSide = new Uint8Array(1024)
  let idLine = new Int32Array(1024)
  let ids = 0
  const encoded: Encoded[] = []

  const grow = () => {
    capacity <<= 1
    mask = capacity - 1
    slots = new Int32Array(capacity)
    for (let id = 0; id < ids; id++) {
      let slot = idHash[id]! & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = id + 1
    }
  }
  const growIds = () => {
    const n = idHash.length * 2
    const h = new Int32Array(n)
    h.set(idHash)
    idHash = h
    const s = new Uint8Array(n)
    s.set(idSide)
    idSide = s
    const l = new Int32Array(n)
    l.set(idLine)
    idLine = l
  }

  const out: Int32Array[] = []
  for (let side = 0; side < 2; side++) {
    const bytes = Buffer.from(side === 0 ? aText : bText, encoding)
    let starts = new Int32Array(1024)
    let lineIds = new Int32Array(1024)
    let count = 0
    const finishLine = (start: number, end: number, h: number) => {
      if (count + 1 >= starts.length) {
        const s = new Int32Array(starts.length * 2)
        s.set(starts)
        starts = s
        const l = new Int32Array(lineIds.length * 2)
        l.set(lineIds)
        lineIds = l
      }
      starts[count] = start
      starts[count + 1] = end
      let slot = h & mask
      for (;;) {
        const found = slots[slot]! - 1
        if (found < 0) break
        if (idHash[found] === h) {
          // The other line is on this side (still being read) or on side a (done).
          const other = idSide[found] === side ? null : encoded[0]!
          const otherBytes = other ? other.bytes : bytes
          const otherStarts = other ? other.starts : starts
          const os = otherStarts[idLine[found]!]!
          const oe = otherStarts[idLine[found]! + 1]!
          if (oe - os === end - start && sameBytes(bytes, start, otherBytes, os, end - start)) {
            lineIds[count++] = found
            return
          }
        }
        slot = (slot + 1) & mask
      }
      if (ids >= idHash.length) growIds()
      idHash[ids] = h
      idSide[ids] = side
      idLine[ids] = count
      slots[slot] = ids + 1
      lineIds[count++] = ids++
      if (ids * 2 > capacity) grow()
    }

    let start = 0
    let h = 0x811c9dc5
    const length = bytes.length
    if (unit === 1) {
      for (let k = 0; k < length; k++) {
        const byte = bytes[k]!
        h = Math.imul(h ^ byte, 16777619)
        if (byte === 10) {
          finishLine(start, k + 1, h)
          start = k + 1
          h = 0x811c9dc5
        }
      }
    } else {
      for (let k = 0; k < length; k += 2) {
        const lo = bytes[k]!
        const hi = bytes[k + 1]!
        h = Math.imul(Math.imul(h ^ lo, 16777619) ^ hi, 16777619)
        if (lo === 10 && hi === 0) {
          finishLine(start, k + 2, h)
          start = k + 2
          h = 0x811c9dc5
        }
      }
    }
    if (start < length) finishLine(start, length, h)
    const e: Encoded = { bytes, encoding, starts, count }
    encoded.push(e)
    out.push(lineIds.subarray(0, count))
  }
  return { a: out[0]!, b: out[1]!, aLines: listOf(encoded[0]!), bLines: listOf(encoded[1]!) }
}

function sameBytes(x: Uint8Array, xs: number, y: Uint8Array, ys: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (x[xs + k] !== y[ys + k]) return false
  return true
}
