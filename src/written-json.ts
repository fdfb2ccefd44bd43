// A value's JSON text, already written, in parts: an answer is written once (a part per loop turn, or by the thread
// that computed it) and then sent, stored and streamed as that text, never serialised or parsed again on the loop.

export class WrittenJson {
  #text: string | null = null

  /** Each part is JSON text cut between tokens (or inside a long string); the parts joined are one JSON value. */
  constructor(readonly parts: readonly string[]) {}

  /** The whole text (joined once, then kept). */
  text(): string {
    return (this.#text ??= this.parts.length === 1 ? this.parts[0]! : this.parts.join(''))
  }

  /** The value, parsed: for the few readers that need it as data (MCP's structured content), never the HTTP path. */
  value(): unknown {
    return JSON.parse(this.text())
  }

  /** What JSON.stringify writes for it (MCP's framing, Redis): the value it stands for, parsed. The writer splices it. */
  toJSON(): unknown {
    return this.value()
  }

  /** Characters in all (a part may hold non-ASCII text, so bytes can be more). */
  get length(): number {
    let n = 0
    for (const part of this.parts) n += part.length
    return n
  }
}

/** A value as data: written text parsed back, anything else as it is. */
export const asData = (value: unknown): unknown => (value instanceof WrittenJson ? value.value() : value)
