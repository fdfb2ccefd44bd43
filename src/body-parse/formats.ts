// What a request body becomes, the same on the event loop (small bodies) and in the mill (large ones): JSON under
// the host's rules (json-text.ts, Fastify's prototype-poisoning protection), a text member, or the body's bytes as
// they arrived (a CSV import: decoded and parsed by the mill task that reads it, never on the loop).
import secureJsonParse from 'secure-json-parse'
import { parseJsonShaped } from './json-text.js'
import { Refusal, type RefusalCode, type RefusalOptions } from '../http/refusal.js'

export type BodyFormat =
  // inTheMill: a large body is not parsed here but kept as its bytes (BodyBlocks) for the operation that reads it in the mill
  | JsonFormat & { inTheMill?: boolean }
  // the body's bytes, undecoded (isBodyBytes): a CSV import's, moved (`movable`) to the mill task that decodes them
  | { kind: 'bytes' }
  | TextFormat & { inTheMill?: boolean }

/** A text/plain body that is one member of the operation's input (e.g. /sat's dimacs); no member: the text itself. */
export interface TextFormat {
  kind: 'text'
  member?: string
}

/** How a JSON body is parsed: the host's caps on its nesting and its values. */
export interface JsonFormat {
  kind: 'json'
  maxDepth: number
  maxValues: number
}

/**
 * A large body kept as the bytes it arrived in, for an operation that reads its input in the mill (issue #30: on the
 * loop a request handles at most 64 KiB of JSON as a value): parsed, validated and answered there, under `format`. A
 * text body's `fields` are the input's other members (from the query string), joined to its text's there.
 */
export class BodyBlocks {
  constructor(
    readonly blocks: Uint8Array[],
    readonly format: JsonFormat | TextFormat,
    readonly fields?: Record<string, unknown>,
  ) {}

  /** The same body with the members that join its text's. */
  withFields(fields: Record<string, unknown>): BodyBlocks {
    return new BodyBlocks(this.blocks, this.format, fields)
  }
}

/** A body's outcome that refuses it: a refusal, or one of Fastify's own JSON body errors. */
export type BodyFailure =
  | { ok: false; refusal: { code: RefusalCode; reason: string; options: RefusalOptions } }
  | { ok: false; fastify: 'FST_ERR_CTP_EMPTY_JSON_BODY' | 'FST_ERR_CTP_INVALID_JSON_BODY' }

/**
 * A body's outcome as it crosses the thread: a value, a refusal, or one of Fastify's own JSON body errors. `depth` is
 * a JSON value's nesting; `json` is a checked JSON text sent in place of a value too deep to cross by structured clone;
 * `overLoop`: what crosses back holds more values than a body parsed on the loop may (LOOP_BODY_MAX_VALUES).
 */
export type BodyOutcome =
  | { ok: true; value: unknown; depth?: number; overLoop?: boolean }
  | { ok: true; json: string; overLoop?: boolean }
  | BodyFailure

/** As Fastify's default JSON parser is configured here: `__proto__` refused, `constructor` left alone. */
const SECURE = { protoAction: 'error', constructorAction: 'ignore' } as const

class InvalidJson extends Error {}

function secureParse(text: string): unknown {
  try {
    return secureJsonParse.parse(text, SECURE)
  } catch {
    throw new InvalidJson()
  }
}

/** The body's text: UTF-8 decoded as Fastify decodes it (invalid sequences become U+FFFD; a BOM is kept). */
export const textOf = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')

/**
 * Whether a request's body is bytes the reader kept (format `bytes`): its blocks in order, at least one (an empty body
 * is one empty block). A parsed JSON body never holds a Uint8Array.
 */
export const isBodyBytes = (body: unknown): body is Uint8Array[] =>
  Array.isArray(body) && body.length > 0 && body.every((block) => block instanceof Uint8Array)

/** Blocks as one view: the only one as it is, several joined (a copy: for a worker, or a body of at most 64 KiB). */
export const joined = (blocks: readonly Uint8Array[]): Uint8Array => (blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks))

/** A body's text from its bytes (decoded as `textOf` decodes a body), or the text itself. */
export const bodyText = (body: string | readonly Uint8Array[]): string => (typeof body === 'string' ? body : textOf(joined(body)))

export function parseBody(bytes: Uint8Array, format: BodyFormat): BodyOutcome {
  try {
    if (format.kind === 'bytes') return { ok: true, value: [bytes] }
    const text = textOf(bytes)
    if (format.kind === 'text') return { ok: true, value: format.member === undefined ? text : { [format.member]: text } }
    if (text.length === 0) return { ok: false, fastify: 'FST_ERR_CTP_EMPTY_JSON_BODY' }
    const { value, shape } = parseJsonShaped(text, format.maxDepth, secureParse, format.maxValues)
    return { ok: true, value, depth: shape.depth }
  } catch (err) {
    if (err instanceof InvalidJson) return { ok: false, fastify: 'FST_ERR_CTP_INVALID_JSON_BODY' }
    if (err instanceof Refusal) return { ok: false, refusal: { code: err.code, reason: err.message, options: err.options } }
    throw err
  }
}
