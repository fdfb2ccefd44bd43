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

/**
 * UTF-8 bytes read as text the way a StringDecoder reads them (a character cut between parts carried over, a malformed
 * sequence U+FFFD): the text's length in UTF-16 units and, with `write`, its JSON string (JSON.stringify's text, quotes
 * included) as bytes, escaped a decoded part at a time. Each chunk is a buffer of its own, so it can move between threads.
 */
export function utf8AsJsonString(parts: readonly Uint8Array[], write: boolean): { chars: number; chunks: Uint8Array[] | null } {
  const encoder = new TextEncoder()
  const decoder = new StringDecoder('utf8')
  const chunks: Uint8Array[] = [encoder.encode('"')]
  let chars = 0
  // A decoded part never ends inside a surrogate pair (the decoder holds a cut character back), so its escapes are
  // those of the whole text.
  const add = (text: string) => {
    chars += text.length
    if (write && text !== '') chunks.push(encoder.encode(JSON.stringify(text).slice(1, -1)))
  }
  for (const part of parts) add(decoder.write(bufferOf(part)))
  add(decoder.end())
  chunks.push(encoder.encode('"'))
  return { chars, chunks: write ? chunks : null }
}

const payloadOf = (chunks: readonly Buffer[]): Buffer | Readable =>
  chunks.length === 1 ? chunks[0]! : Readable.from(chunks, { objectMode: false })

export class JsonBytes {
  readonly chunks: readonly Buffer[]

  /** The chunks joined are one JSON value's text; no chunk is copied. */
  constructor(chunks: readonly Uint8Array[]) {
    this.chunks = chunks.map(bufferOf)
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
    return payloadOf(this.chunks)
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

  /** The whole text: for readers of a small answer only (MCP inlines at most 64 KiB), never the HTTP path. */
  text(): string {
    return this.chunks.length === 1 ? this.chunks[0]!.toString() : Buffer.concat(this.chunks).toString()
  }

  /** The value, parsed: for the same few readers. */
  value(): unknown {
    return JSON.parse(this.text())
  }
}

/**
 * An answer written as JSON bytes that carries its plain rendering as bytes too (a pin's stored text, the skills
 * Markdown): a route that
 * renders its answer sends those as they are, and never parses the JSON back to render it.
 */
export class RenderedBytes extends JsonBytes {
  readonly rendered: readonly Buffer[]

  constructor(json: JsonBytes, rendered: readonly Uint8Array[]) {
    super(json.chunks)
    this.rendered = rendered.map(bufferOf)
  }

  get renderedLength(): number {
    let n = 0
    for (const chunk of this.rendered) n += chunk.byteLength
    return n
  }

  /** The rendering as text: for a reader that needs it as a string (an MCP resource). */
  renderedText(): string {
    return Buffer.concat(this.rendered).toString()
  }

  /** What a reply sends for the rendering (as `payload()` for the JSON). */
  renderedPayload(): Buffer | Readable {
    return this.rendered.length === 0 ? Buffer.alloc(0) : payloadOf(this.rendered)
  }
}
