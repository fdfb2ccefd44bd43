// JSON text of a value without recursion, a part at a time: inputs may nest 100 000 deep (a JSON formula), past the
// depth at which JSON.stringify overflows the stack. It writes what JSON.stringify writes (the job store's inputs and
// their digest, a formula sent to the mill, a pinned value made canonical there). The text comes in parts of at most
// a given length (one stored row each), cut only between tokens or inside a long string between whole characters, so
// every part is valid text on its own and the parts joined are the whole. Answers are written by their schema's
// serializer (src/json/serializer.ts), never here.
import { pairSafeEnd } from '../engines/digest/base64.js'
import { inTurns } from '../sched/turns.js'

/** A stored part's most characters: ~2.5 ms to INSERT on SQLite, so a 14 MB input is 56 short statements. */
export const PART_CHARS = 256 * 1024

// A long string is escaped this many characters at a time: escaping at most sextuples them (\u0000), so one escaped
// slice always fits in a part.
export const STRING_SLICE = Math.floor(PART_CHARS / 8)

type Frame =
  | { kind: 'array'; items: unknown[]; i: number }
  // Keys listed once with Object.keys; members JSON.stringify leaves out are skipped as they come (listing the object
  // as filtered entries made a pair per key: 0.4 s in one stretch for 200k keys).
  | { kind: 'object'; object: Record<string, unknown>; keys: string[]; i: number; written: number; pending: boolean }
  // A long string (or key: closed by '":') escaped a slice at a time.
  | { kind: 'string'; text: string; i: number; close: '"' | '":' }

/** Members JSON.stringify leaves out of an object. */
const leftOut = (x: unknown): boolean => x === undefined || typeof x === 'function' || typeof x === 'symbol'

/** Writes a value's JSON text a part at a time: `next` answers the next part until `done`. */
export function createJsonWriter(value: unknown) {
  const stack: Frame[] = []

  /** A value's first token; a container or a long string pushes its frame for the rest. */
  const open = (v: unknown): string => {
    if (typeof v === 'string') return v.length <= STRING_SLICE ? JSON.stringify(v) : longString(v, '"')
    if (v === null || typeof v !== 'object') {
      return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : JSON.stringify(v)
    }
    if (typeof (v as { toJSON?: () => unknown }).toJSON === 'function') return JSON.stringify(v)
    if (Array.isArray(v)) {
      stack.push({ kind: 'array', items: v, i: 0 })
      return '['
    }
    stack.push({ kind: 'object', object: v as Record<string, unknown>, keys: Object.keys(v), i: 0, written: 0, pending: false })
    return '{'
  }

  const longString = (text: string, close: '"' | '":'): string => {
    stack.push({ kind: 'string', text, i: 0, close })
    return '"'
  }

  const keyToken = (comma: boolean, key: string): string =>
    (comma ? ',' : '') + (key.length <= STRING_SLICE ? `${JSON.stringify(key)}:` : longString(key, '":'))

  /** The next token of the text, or null at its end. */
  const token = (): string | null => {
    const top = stack[stack.length - 1]
    if (!top) return null
    switch (top.kind) {
      case 'string': {
        if (top.i === top.text.length) {
          stack.pop()
          return top.close
        }
        // Never between the halves of a surrogate pair: JSON.stringify would escape each half on its own.
        const end = pairSafeEnd(top.text, top.i, STRING_SLICE)
        const slice = JSON.stringify(top.text.slice(top.i, end))
        top.i = end
        return slice.slice(1, -1)
      }
      case 'array': {
        if (top.i === top.items.length) {
          stack.pop()
          return ']'
        }
        const comma = top.i > 0 ? ',' : ''
        return comma + open(top.items[top.i++])
      }
      case 'object': {
        if (top.pending) {
          top.pending = false
          return open(top.object[top.keys[top.i - 1]!])
        }
        while (top.i < top.keys.length && leftOut(top.object[top.keys[top.i]!])) top.i++
        if (top.i === top.keys.length) {
          stack.pop()
          return '}'
        }
        const key = top.keys[top.i++]!
        top.pending = true
        return keyToken(top.written++ > 0, key)
      }
    }
  }

  // A token that did not fit the last part starts the next one.
  let carried: string | null = open(value)
  const writer = {
    done: false,
    /** The next part: whole tokens (and long strings' slices) up to maxChars; a single longer token is a part alone. */
    next(maxChars: number = PART_CHARS): string {
      let out = ''
      for (;;) {
        const piece = carried ?? token()
        carried = null
        if (piece === null) {
          writer.done = true
          break
        }
        if (out.length > 0 && out.length + piece.length > maxChars) {
          carried = piece
          break
        }
        out += piece
      }
      return out
    },
  }
  return writer
}

/** The whole JSON text at once (a small value, or a caller that does not mind holding the loop). */
export function stringifyDeep(value: unknown): string {
  return createJsonWriter(value).next(Number.POSITIVE_INFINITY)
}

/** The whole JSON as UTF-8 bytes in a buffer of their own, so they can move to another thread (a mill task's result). */
export const jsonBytesDeep = (value: unknown): Uint8Array => new TextEncoder().encode(stringifyDeep(value))

/** Text handed to another thread (the mill) is written this many characters a turn: ~2 ms for many small members. */
export const TURN_TEXT_CHARS = 64 * 1024

/** The whole JSON text, written a part of at most `maxChars` per loop turn. */
export async function jsonTextInTurns(value: unknown, maxChars: number = TURN_TEXT_CHARS): Promise<string> {
  const parts: string[] = []
  for await (const part of jsonParts(value, maxChars)) parts.push(part)
  return parts.join('')
}

/** The JSON text in parts of at most PART_CHARS, with a loop turn between parts (none for a one-part text). */
export const jsonParts = (value: unknown, maxChars: number = PART_CHARS): AsyncGenerator<string> => inTurns(partsOf(value, maxChars))

function* partsOf(value: unknown, maxChars: number): Generator<string> {
  const writer = createJsonWriter(value)
  do yield writer.next(maxChars)
  while (!writer.done)
}
