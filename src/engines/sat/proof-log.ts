// The solver's proof as it is written: DRAT (lemmas and deletions as literals) or LRAT (clause ids and the hints that
// make each lemma follow by unit propagation), in the standard textual formats, into one growing byte buffer.

export type ProofFormat = 'drat' | 'lrat'

const SPACE = 0x20
const NEWLINE = 0x0a
const MINUS = 0x2d
const ZERO = 0x30
const D = 0x64
/** The most bytes one number takes: a minus sign and ten digits. */
const NUMBER_BYTES = 11

export class ProofLog {
  /** Lines written: added lemmas plus deletions. */
  steps = 0
  /** Set once the proof would pass maxBytes: nothing more is written and the proof is lost. */
  overflowed = false
  private buffer: Uint8Array
  private length = 0

  constructor(
    readonly format: ProofFormat,
    readonly maxBytes: number,
  ) {
    this.buffer = new Uint8Array(Math.min(maxBytes, 1 << 16))
  }

  get live(): boolean {
    return !this.overflowed
  }

  /**
   * A lemma: literals `lits[from … from + count)` in the solver's codes (2v for v, 2v + 1 for ¬v). LRAT lines carry the
   * lemma's id and `hints[0 … hintCount)`, clause ids in the order unit propagation uses them.
   */
  add(id: number, lits: ArrayLike<number>, from: number, count: number, hints: ArrayLike<number>, hintCount: number): void {
    const lrat = this.format === 'lrat'
    if (!this.reserve((count + (lrat ? hintCount + 3 : 1)) * (NUMBER_BYTES + 1) + 1)) return
    if (lrat) this.number(id)
    for (let k = from; k < from + count; k++) {
      const code = lits[k]!
      this.number(code & 1 ? -(code >> 1) : code >> 1)
    }
    this.number(0)
    if (lrat) {
      for (let k = 0; k < hintCount; k++) this.number(hints[k]!)
      this.number(0)
    }
    this.buffer[this.length++] = NEWLINE
    this.steps++
  }

  /** A deleted clause: by its literals (DRAT) or by its id (LRAT, on a line numbered with the latest id). */
  delete(latestId: number, id: number, lits: ArrayLike<number>, from: number, count: number): void {
    const lrat = this.format === 'lrat'
    if (!this.reserve((lrat ? 3 : count + 2) * (NUMBER_BYTES + 1) + 3)) return
    if (lrat) {
      this.number(latestId)
      this.buffer[this.length++] = SPACE
      this.buffer[this.length++] = D
      this.number(id)
    } else {
      this.buffer[this.length++] = D
      for (let k = from; k < from + count; k++) {
        const code = lits[k]!
        this.number(code & 1 ? -(code >> 1) : code >> 1)
      }
    }
    this.number(0)
    this.buffer[this.length++] = NEWLINE
    this.steps++
  }

  /** The proof text written so far (a copy the size of the text), or null when it overflowed. */
  bytes(): Uint8Array | null {
    return this.overflowed ? null : this.buffer.slice(0, this.length)
  }

  get byteLength(): number {
    return this.length
  }

  /** Writes ` n` (a space first, except at the start of a line). */
  private number(n: number): void {
    const buffer = this.buffer
    if (this.length > 0 && buffer[this.length - 1] !== NEWLINE) buffer[this.length++] = SPACE
    if (n < 0) {
      buffer[this.length++] = MINUS
      n = -n
    }
    if (n < 10) {
      buffer[this.length++] = ZERO + n
      return
    }
    let digits = 1
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++
    let at = this.length + digits
    this.length = at
    while (n >= 10) {
      const q = Math.floor(n / 10)
      buffer[--at] = ZERO + (n - q * 10)
      n = q
    }
    buffer[--at] = ZERO + n
  }

  private reserve(bytes: number): boolean {
    if (this.overflowed) return false
    const need = this.length + bytes
    if (need <= this.buffer.length) return true
    if (need > this.maxBytes) {
      // The line might still fit exactly, but a bound that depends on digit counts is not worth keeping.
      this.overflowed = true
      this.buffer = new Uint8Array(0)
      this.length = 0
      return false
    }
    const grown = new Uint8Array(Math.min(this.maxBytes, Math.max(need, this.buffer.length * 2)))
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
    return true
  }
}
