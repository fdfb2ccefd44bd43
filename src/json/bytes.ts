// An answer's JSON text as UTF-8 bytes, written where it was computed (a mill worker, the route's serializer) and then
// stored, sent and streamed as they are: the loop never writes or parses a large answer again.
import { StringDecoder } from 'node:string_decoder'
import { Readable } from 'node:stream'

/** Bytes decoded at a time by `texts()`: a fraction of a millisecond. */
export const TEXT_PART_BYTES = 256 * 1024

/** A view of bytes that moved here from a worker, as a Buffer without a copy. */
export const bufferOf = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const COMMA = Buffer.from(',')

export class JsonBytes {
  readonly chunks: readonly Buffer[]

  readonly #value: { of: unknown } | null

  /**
   * The chunks joined are one JSON value's text; no chunk is copied. `value`: the value they were written from, where
   * the writer still has it (a rendering that is not JSON reads it instead of parsing the text back).
   */
  constructor(chunks: readonly Uint8Array[], value?: { of: unknown }) {
    this.chunks = chunks.map(bufferOf)
    this.#value = value ?? null
  }

  static of(text: string): JsonBytes {
    return new JsonBytes([Buffer.from(text)])
  }

  /** A JSON array of values already written, their bytes as they are (none copied). */
  static array(items: readonly JsonBytes[]): JsonBytes {
    const chunks: Buffer[] = [Buffer.from('[')]
    items.forEach((item, i) => {
      if (i > 0) chunks.push(COMMA)
      chunks.push(...item.chunks)
    })
    chunks.push(Buffer.from(']'))
    return new JsonBytes(chunks)
  }

  get byteLength(): number {
    let n = 0
    for (const chunk of this.chunks) n += chunk.byteLength
    return n
  }

  /** The same text with other text before and after it (an envelope around an answer). */
  between(before: string, after: string): JsonBytes {
    return new JsonBytes([Buffer.from(before), ...this.chunks, Buffer.from(after)])
  }

  /** What a reply sends: the one chunk, or the chunks as a stream (the same buffers for every reply, never joined). */
  payload(): Buffer | Readable {
    return this.chunks.length === 1 ? this.chunks[0]! : Readable.from(this.chunks, { objectMode: false })
  }

  /** The text in parts of at most `partBytes` bytes each (a character cut between parts is carried over), for a reader that turns the loop between parts. */
  *texts(partBytes: number = TEXT_PART_BYTES): Generator<string> {
    const decoder = new StringDecoder('utf8')
    for (const chunk of this.chunks) {
      for (let at = 0; at < chunk.byteLength; at += partBytes) {
        const text = decoder.write(chunk.subarray(at, at + partBytes))
        if (text !== '') yield text
      }
    }
    const rest = decoder.end()
    if (rest !== '') yield rest
  }

  /** The whole text: for readers of a small answer only (MCP inlines at most 256 KiB), never the HTTP path. */
  text(): string {
    return this.chunks.length === 1 ? this.chunks[0]!.toString() : Buffer.concat(this.chunks).toString()
  }

  /** The value it was written from, or the text parsed: for the same few readers. */
  value(): unknown {
    return this.#value ? this.#value.of : JSON.parse(this.text())
  }
}
