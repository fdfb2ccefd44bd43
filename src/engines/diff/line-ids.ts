// Interns the lines of two texts as integer ids without cutting them into strings: each text is encoded once,
// every line is hashed in place, an open-addressing table maps hashes to ids, and bytes are compared to confirm.
import { isWellFormed } from '../digest/base64.js'

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

/** Open addressing, laid out for few cache misses: one slot holds [hash, id + 1]; one id holds [start, end, side, line]. */
interface Table {
  mask: number
  slots: Int32Array
  info: Int32Array
  size: number
}

interface SideLines {
  ids: Int32Array
  /** Line i is bytes[starts[i], starts[i + 1]). */
  starts: Int32Array
  count: number
}

/** Upper bound on the lines of a text: one per "\n", plus a last line without one. */
function maxLines(text: string): number {
  let count = 1
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  return count
}

/**
 * One pass over the bytes: hash each line while looking for its end, then find or add its id. For side b, the line
 * after the last matched line of a is compared first: in similar texts it is usually the one, and reading memory in
 * order is far cheaper than hashing and probing a table.
 */
function internSide(
  table: Table,
  sides: readonly Buffer[],
  side: 0 | 1,
  unit: 1 | 2,
  capacity: number,
  previous: SideLines | null,
): SideLines {
  const bytes = sides[side]!
  const other = sides[0]!
  const ids = new Int32Array(capacity)
  const starts = new Int32Array(capacity + 1)
  const { mask, slots, info } = table
  const length = bytes.length
  let predicted = 0
  let count = 0
  let k = 0
  while (k < length) {
    const start = k
    if (previous && predicted < previous.count) {
      // Compare with the predicted line of a as we go: a hit costs one pass and no hash at all.
      const ps = previous.starts[predicted]!
      const pe = previous.starts[predicted + 1]!
      let i = k
      let j = ps
      while (j < pe && i < length && bytes[i] === other[j]) {
        i++
        j++
      }
      const endsWithNewline = unit === 1 ? other[pe - 1] === 10 : other[pe - 2] === 10 && other[pe - 1] === 0
      if (j === pe && (endsWithNewline || i === length)) {
        ids[count] = previous.ids[predicted++]!
        starts[count++] = start
        k = i
        continue
      }
    }
    let h = 0x811c9dc5
    if (unit === 1) {
      while (k < length) {
        const byte = bytes[k++]!
        h = Math.imul(h ^ byte, 16777619)
        if (byte === 10) break
      }
    } else {
      // UTF-16LE: a newline is 0A 00 at an even offset.
      while (k < length) {
        const lo = bytes[k]!
        const hi = bytes[k + 1]!
        k += 2
        h = Math.imul(Math.imul(h ^ lo, 16777619) ^ hi, 16777619)
        if (lo === 10 && hi === 0) break
      }
    }
    const end = k
    let id = -1
    let slot = h & mask
    for (;;) {
      const found = slots[2 * slot + 1]! - 1
      if (found < 0) break
      const at = 4 * found
      if (slots[2 * slot] === h && info[at + 1]! - info[at]! === end - start) {
        if (sameBytes(bytes, start, sides[info[at + 2]!]!, info[at]!, end - start)) {
          id = found
          if (previous && info[at + 2] === 0) predicted = info[at + 3]! + 1
          break
        }
      }
      slot = (slot + 1) & mask
    }
    if (id < 0) {
      id = table.size++
      slots[2 * slot] = h
      slots[2 * slot + 1] = id + 1
      info[4 * id] = start
      info[4 * id + 1] = end
      info[4 * id + 2] = side
      info[4 * id + 3] = count
    }
    ids[count] = id
    starts[count++] = start
  }
  starts[count] = length
  return { ids: ids.subarray(0, count), starts: starts.subarray(0, count + 1), count }
}

function sameBytes(x: Uint8Array, xs: number, y: Uint8Array, ys: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (x[xs + k] !== y[ys + k]) return false
  return true
}

export function internLines(aText: string, bText: string): InternedLines {
  // UTF-8 halves the bytes of ASCII-heavy text but maps every lone surrogate to U+FFFD; such text goes as UTF-16,
  // and both sides share one encoding so that equal lines have equal bytes.
  const encoding: Encoding = isWellFormed(aText) && isWellFormed(bText) ? 'utf8' : 'utf16le'
  const unit = encoding === 'utf8' ? 1 : 2
  const sides = [Buffer.from(aText, encoding), Buffer.from(bText, encoding)]
  const aMax = maxLines(aText)
  const bMax = maxLines(bText)
  let capacity = 16
  while (capacity < 2 * (aMax + bMax)) capacity <<= 1
  const table: Table = {
    mask: capacity - 1,
    slots: new Int32Array(2 * capacity),
    info: new Int32Array(4 * (aMax + bMax)),
    size: 0,
  }
  const a = internSide(table, sides, 0, unit, aMax, null)
  const b = internSide(table, sides, 1, unit, bMax, a)
  const listOf = (bytes: Buffer, lines: SideLines): LineList => ({
    length: lines.count,
    at: (i) => (i >= 0 && i < lines.count ? bytes.toString(encoding, lines.starts[i]!, lines.starts[i + 1]!) : undefined),
  })
  return { a: a.ids, b: b.ids, aLines: listOf(sides[0]!, a), bLines: listOf(sides[1]!, b) }
}
