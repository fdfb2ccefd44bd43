// A value's JSON text, already written, in parts: an answer is written once (a part per loop turn, or by the thread
// that computed it) and then sent, stored and streamed as that text, never serialised or parsed again on the loop.
import { Readable } from 'node:stream'

export class WrittenJson {
  #text: string | null = null

  /**
   * Each part is JSON text cut between tokens (or inside a long string); the parts joined are one JSON value. `bytes`,
   * when given, are the parts as UTF-8, encoded as they were written: a socket write of a 15 MB string encodes it in
   * one stretch of the loop (~30 ms), a Buffer is copied out as the socket drains.
   */
  constructor(readonly parts: readonly string[], readonly bytes: readonly Buffer[] | null = null) {}

  /**
   * What a reply sends: the encoded parts as a stream when the text was encoded as it was written (the same bytes for
   * every request that sends this answer: no copy per request, where joining them made one), else the text.
   */
  payload(): string | Readable {
    return this.bytes ? Readable.from(this.bytes, { objectMode: false }) : this.text()
  }

  /** The same text with other text before and after it (an envelope around an answer). */
  between(before: string, after: string): WrittenJson {
    return new WrittenJson([before, ...this.parts, after], this.bytes && [Buffer.from(before), ...this.bytes, Buffer.from(after)])
  }

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

/** A one-part text this long is encoded once too: sent again and again (a document), each send would encode it anew. */
const ENCODED_FROM_CHARS = 64 * 1024

/**
 * Collects parts as they come (each source turns the loop between parts); a text of more than one part, or of one
 * long part, is also encoded, a part at a time, for the reply.
 */
export async function collectWritten(source: AsyncIterable<string>): Promise<WrittenJson> {
  const parts: string[] = []
  const bytes: Buffer[] = []
  for await (const part of source) {
    parts.push(part)
    if (parts.length === 2) bytes.push(Buffer.from(parts[0]!))
    if (parts.length > 1) bytes.push(Buffer.from(part))
  }
  if (parts.length === 1 && parts[0]!.length >= ENCODED_FROM_CHARS) bytes.push(Buffer.from(parts[0]!))
  return new WrittenJson(parts, bytes.length > 0 ? bytes : null)
}

/** Whether a WrittenJson sits anywhere in a value (a mill task's answer part: /diff's patch, /jsonsat's model). */
function holdsWritten(value: unknown): boolean {
  const waiting: unknown[] = [value]
  while (waiting.length > 0) {
    const v = waiting.pop()
    if (v instanceof WrittenJson) return true
    if (v === null || typeof v !== 'object') continue
    // One push at a time: spreading 100k items as arguments overflows the stack.
    for (const item of Array.isArray(v) ? v : Object.values(v)) waiting.push(item)
  }
  return false
}

/** A value as data: written text parsed back, wherever it sits in the value (through toJSON), anything else as it is. */
export const asData = (value: unknown): unknown =>
  value instanceof WrittenJson ? value.value() : holdsWritten(value) ? JSON.parse(JSON.stringify(value)) : value
