// Reads a textual DRAT or LRAT proof as a stream of tokens: signed integers, the letter d, and line ends ('c' comments skipped).

export const END = 0
export const NUMBER = 1
export const DELETE = 2

export class ProofSyntaxError extends Error {
  override name = 'ProofSyntaxError'
}

export class ProofTokens {
  /** The last number read (valid after next() answered NUMBER). */
  value = 0
  /** Lines begun so far: the line of the last token, counted from 1. */
  line = 1
  private at = 0

  constructor(private readonly bytes: Uint8Array) {}

  /** The next token: NUMBER (in `value`), DELETE, or END at the end of the text. */
  next(): number {
    const bytes = this.bytes
    const n = bytes.length
    for (;;) {
      while (this.at < n) {
        const b = bytes[this.at]!
        if (b === 0x0a) this.line++
        else if (b !== 0x20 && b !== 0x09 && b !== 0x0d) break
        this.at++
      }
      if (this.at >= n) return END
      if (bytes[this.at] !== 0x63) break // 'c': a comment to the end of its line
      while (this.at < n && bytes[this.at] !== 0x0a) this.at++
    }
    const first = bytes[this.at]!
    if (first === 0x64) {
      this.at++
      this.expectSeparator()
      return DELETE
    }
    let negative = false
    if (first === 0x2d) {
      negative = true
      this.at++
    }
    let value = 0
    let digits = 0
    while (this.at < n) {
      const b = bytes[this.at]!
      if (b < 0x30 || b > 0x39) break
      value = value * 10 + (b - 0x30)
      digits++
      this.at++
    }
    if (digits === 0 || value > 0x7fffffff) throw new ProofSyntaxError(`line ${this.line}: expected a number`)
    this.expectSeparator()
    this.value = negative ? -value : value
    return NUMBER
  }

  /** The next token, which must be a number. */
  number(): number {
    if (this.next() !== NUMBER) throw new ProofSyntaxError(`line ${this.line}: expected a number`)
    return this.value
  }

  private expectSeparator(): void {
    if (this.at >= this.bytes.length) return
    const b = this.bytes[this.at]!
    if (b !== 0x20 && b !== 0x0a && b !== 0x09 && b !== 0x0d) throw new ProofSyntaxError(`line ${this.line}: unexpected character`)
  }
}
