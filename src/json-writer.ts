// JSON text of a value without recursion, a part at a time: inputs may nest 100 000 deep (a JSON formula), past the
// depth at which JSON.stringify overflows the stack, and answers may be megabytes (a 250k-bar equity curve), more than
// one turn of the loop should write. Plain, it writes what JSON.stringify writes (the job store's inputs, a formula
// sent to the mill, a pinned value made canonical there). Given an answer's shape (answer-shape.ts), it writes what
// the route's fast-json-stringify serializer writes: declared members only, required ones first. The text comes in
// parts of at most a given length (one stored row each), cut only between tokens or inside a long string between
// whole characters, so every part is valid text on its own and the parts joined are the whole.
import { pairSafeEnd } from './engines/digest/base64.js'
import { nextTurn } from './store/turns.js'
import { collectWritten, WrittenJson } from './written-json.js'
import type { z } from 'zod'
import { isFlat, shapeOf, type ArrayPlan, type NodePlan, type ObjectPlan, type ShapeOf } from './answer-shape.js'

/** A stored part's most characters: ~2.5 ms to INSERT on SQLite, so a 14 MB input is 56 short statements. */
export const PART_CHARS = 256 * 1024

// A long string is escaped this many characters at a time: escaping at most sextuples them (\u0000), so one escaped
// slice always fits in a part.
export const STRING_SLICE = Math.floor(PART_CHARS / 8)

type Frame =
  | { kind: 'array'; items: unknown[]; i: number; plan: ArrayPlan | null }
  // Keys listed once with Object.keys; members JSON.stringify leaves out are skipped as they come (listing the object
  // as filtered entries made a pair per key: 0.4 s in one stretch for 200k keys).
  | { kind: 'object'; object: Record<string, unknown>; keys: string[]; i: number; written: number; pending: NodePlan | null | undefined }
  // An object written through its plan: declared members in the plan's order, then the others its schema lets through.
  | { kind: 'shaped'; object: Record<string, unknown>; plan: ObjectPlan; i: number; extra: string[] | null; j: number; written: number; pending: NodePlan | null | undefined; value: unknown }
  // A long string (or key: closed by '":') escaped a slice at a time.
  | { kind: 'string'; text: string; i: number; close: '"' | '":' }
  // Text already written (WrittenJson), passed on a slice at a time.
  | { kind: 'written'; parts: readonly string[]; part: number; i: number }

/** Items of a flat plan written as one token, up to about this many characters (a 250k-point curve: ~1,000 tokens). */
const BATCH_CHARS = 8 * 1024

/**
 * The whole text of a value of a flat plan (answer-shape.ts), as `open` would write it token by token; undefined when
 * the value is not what the plan expects (another type, a long string, a missing member): the token path handles it.
 */
function flatText(v: unknown, plan: NodePlan): string | undefined {
  if (plan.kind === 'any' || plan.kind === 'fallback' || plan.kind === 'union') return undefined
  if (plan.nullable && v === null) return 'null'
  switch (plan.kind) {
    case 'string':
      return typeof v === 'string' && v.length <= STRING_SLICE ? JSON.stringify(v) : undefined
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? '' + v : undefined
    case 'integer':
      return Number.isInteger(v) ? '' + (v as number) : undefined
    case 'boolean':
      return typeof v === 'boolean' ? (v ? 'true' : 'false') : undefined
    case 'null':
      return 'null'
    case 'array': {
      const tuple = plan.tuple
      if (tuple === null || !Array.isArray(v) || v.length > tuple.length) return undefined
      let text = '['
      for (let i = 0; i < v.length; i++) {
        const item = flatText(v[i], tuple[i]!)
        if (item === undefined) return undefined
        text += (i > 0 ? ',' : '') + item
      }
      return text + ']'
    }
    case 'object': {
      if (!isPlainObject(v)) return undefined
      let text = ''
      for (let i = 0; i < plan.keys.length; i++) {
        const key = plan.keys[i]!
        const member = v[key]
        let memberText: string | undefined
        if (member === undefined) {
          if (plan.defaults[i] === undefined) {
            if (plan.required[i]) return undefined
            continue
          }
          memberText = plan.defaults[i]
        } else {
          memberText = flatText(member, plan.members[i]!)
          if (memberText === undefined) return undefined
        }
        text += (text === '' ? '{' : ',') + JSON.stringify(key) + ':' + memberText
      }
      return text === '' ? '{}' : text + '}'
    }
  }
}

/** Members JSON.stringify leaves out of an object. */
const leftOut = (x: unknown): boolean => x === undefined || typeof x === 'function' || typeof x === 'symbol'

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof WrittenJson) && typeof (v as { toJSON?: unknown }).toJSON !== 'function'

/**
 * Writes a value's JSON text a part at a time: `next` answers the next part until `done`. With a shape, the value is
 * written as its schema says; a WrittenJson anywhere in it is taken as its text.
 */
export function createJsonWriter(value: unknown, shape?: ShapeOf) {
  const stack: Frame[] = []

  /** A value's first token; a container or a long string pushes its frame for the rest. `plan` null: plain JSON. */
  const open = (v: unknown, plan: NodePlan | null): string => {
    if (v instanceof WrittenJson) {
      stack.push({ kind: 'written', parts: v.parts, part: 0, i: 0 })
      return ''
    }
    if (plan === null || plan.kind === 'any') return openPlain(v)
    if (plan.kind === 'fallback') return plan.write(v)
    if (plan.kind === 'union') {
      const branch = isPlainObject(v) ? plan.branches.get(v[plan.key]) : undefined
      return branch ? open(v, branch) : plan.write(v)
    }
    if (plan.nullable && v === null) return 'null'
    if (plan.flat) {
      const text = flatText(v, plan)
      if (text !== undefined) return text
    }
    switch (plan.kind) {
      case 'string':
        if (typeof v !== 'string') return plan.write(v)
        return v.length <= STRING_SLICE ? JSON.stringify(v) : longString(v, '"')
      case 'number':
        return typeof v === 'number' && Number.isFinite(v) ? '' + v : plan.write(v)
      case 'integer':
        return Number.isInteger(v) ? '' + (v as number) : plan.write(v)
      case 'boolean':
        return typeof v === 'boolean' ? (v ? 'true' : 'false') : plan.write(v)
      case 'null':
        return 'null'
      case 'array':
        if (!Array.isArray(v) || (plan.tuple !== null && v.length > plan.tuple.length)) return plan.write(v)
        stack.push({ kind: 'array', items: v, i: 0, plan })
        return '['
      case 'object':
        if (!isPlainObject(v)) return plan.write(v)
        stack.push({ kind: 'shaped', object: v, plan, i: 0, extra: null, j: 0, written: 0, pending: undefined, value: undefined })
        return '{'
    }
  }

  const openPlain = (v: unknown): string => {
    if (typeof v === 'string') return v.length <= STRING_SLICE ? JSON.stringify(v) : longString(v, '"')
    if (v === null || typeof v !== 'object') {
      return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : JSON.stringify(v)
    }
    if (typeof (v as { toJSON?: () => unknown }).toJSON === 'function') return JSON.stringify(v)
    if (Array.isArray(v)) {
      stack.push({ kind: 'array', items: v, i: 0, plan: null })
      return '['
    }
    stack.push({ kind: 'object', object: v as Record<string, unknown>, keys: Object.keys(v), i: 0, written: 0, pending: undefined })
    return '{'
  }

  const longString = (text: string, close: '"' | '":'): string => {
    stack.push({ kind: 'string', text, i: 0, close })
    return '"'
  }

  const keyToken = (comma: boolean, key: string): string =>
    (comma ? ',' : '') + (key.length <= STRING_SLICE ? `${JSON.stringify(key)}:` : longString(key, '":'))

  /** The next token of a shaped object: its declared members in order, then the others its schema lets through. */
  const shapedToken = (top: Extract<Frame, { kind: 'shaped' }>): string | null => {
    const { plan, object } = top
    if (top.pending !== undefined) {
      const member = top.pending
      const value = top.value
      top.pending = undefined
      top.value = undefined
      return open(value, member)
    }
    while (top.i < plan.keys.length) {
      const at = top.i++
      const key = plan.keys[at]!
      if (object[key] === undefined) {
        // As fast-json-stringify: a default stands in for a missing member; a missing required one is an error.
        const fallbackText = plan.defaults[at]
        if (fallbackText !== undefined) return (top.written++ > 0 ? ',' : '') + JSON.stringify(key) + ':' + fallbackText
        if (plan.required[at]) throw new Error(`${JSON.stringify(key)} is required!`)
        continue
      }
      const token = keyToken(top.written++ > 0, key)
      top.pending = plan.members[at]!
      top.value = object[key]
      return token
    }
    if (plan.extra === undefined) {
      stack.pop()
      return '}'
    }
    top.extra ??= plan.keys.length === 0 ? Object.keys(object) : Object.keys(object).filter((k) => !plan.declared.has(k))
    while (top.j < top.extra.length) {
      const key = top.extra[top.j++]!
      if (leftOut(object[key])) continue
      const token = keyToken(top.written++ > 0, key)
      top.pending = plan.extra
      top.value = object[key]
      return token
    }
    stack.pop()
    return '}'
  }

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
      case 'written': {
        const part = top.parts[top.part]
        if (part === undefined) {
          stack.pop()
          return ''
        }
        // Passed on in slices a part can hold, never between the halves of a surrogate pair.
        const end = pairSafeEnd(part, top.i, STRING_SLICE)
        const slice = top.i === 0 && end === part.length ? part : part.slice(top.i, end)
        if (end === part.length) {
          top.part++
          top.i = 0
        } else {
          top.i = end
        }
        return slice
      }
      case 'array': {
        if (top.i === top.items.length) {
          stack.pop()
          return ']'
        }
        const plan = top.plan
        const items = plan?.items
        if (items && isFlat(items)) {
          // A run of flat items in one token: an equity curve's points, a list of trades.
          let batch = ''
          while (top.i < top.items.length && batch.length < BATCH_CHARS) {
            const text = flatText(top.items[top.i], items)
            if (text === undefined) break
            batch += (top.i++ > 0 ? ',' : '') + text
          }
          if (batch !== '') return batch
        }
        const comma = top.i > 0 ? ',' : ''
        const at = top.i++
        return comma + open(top.items[at], plan === null ? null : plan.tuple !== null ? plan.tuple[at]! : plan.items)
      }
      case 'shaped':
        return shapedToken(top)
      case 'object': {
        if (top.pending !== undefined) {
          top.pending = undefined
          return open(top.object[top.keys[top.i - 1]!], null)
        }
        while (top.i < top.keys.length && leftOut(top.object[top.keys[top.i]!])) top.i++
        if (top.i === top.keys.length) {
          stack.pop()
          return '}'
        }
        const key = top.keys[top.i++]!
        top.pending = null
        return keyToken(top.written++ > 0, key)
      }
    }
  }

  // A token that did not fit the last part starts the next one.
  let carried: string | null = open(value, shape?.root ?? null)
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

/** Text handed to another thread (the mill) is written this many characters a turn: ~2 ms for many small members. */
export const TURN_TEXT_CHARS = 64 * 1024

/** The whole JSON text, written a part of at most `maxChars` per loop turn. */
export async function jsonTextInTurns(value: unknown, maxChars: number = TURN_TEXT_CHARS): Promise<string> {
  const parts: string[] = []
  for await (const part of jsonParts(value, maxChars)) parts.push(part)
  return parts.join('')
}

/** The JSON text in parts of at most PART_CHARS, with a loop turn between parts (none for a one-part text). */
export async function* jsonParts(value: unknown, maxChars: number = PART_CHARS): AsyncGenerator<string> {
  const writer = createJsonWriter(value)
  for (;;) {
    yield writer.next(maxChars)
    if (writer.done) return
    await nextTurn()
  }
}

/**
 * An answer's text in parts of at most PART_CHARS (one stored row each), written TURN_TEXT_CHARS a loop turn: numbers
 * cost more to write than the long strings of an input (a part of an equity curve's doubles took ~9 ms at once).
 */
async function* answerParts(value: unknown, shape: ShapeOf): AsyncGenerator<string> {
  const writer = createJsonWriter(value, shape)
  let part = ''
  for (;;) {
    const piece = writer.next(Math.min(TURN_TEXT_CHARS, PART_CHARS - part.length))
    // A piece over the room left is a single long token: it starts the next part.
    if (part.length > 0 && part.length + piece.length > PART_CHARS) {
      yield part
      part = piece
    } else {
      part += piece
    }
    if (writer.done) {
      yield part
      return
    }
    await nextTurn()
  }
}

/** An answer written through its shape a few thousand characters per loop turn, kept as its parts (stored and sent as they are). */
export function writeInTurns(value: unknown, shape: ShapeOf): Promise<WrittenJson> {
  return collectWritten(answerParts(value, shape))
}

/**
 * For a route typed by its answer schema: the answer written in turns, typed as the value it stands for (the
 * serializer sends a WrittenJson's text as it is).
 */
export function writtenAs<T>(schema: z.ZodType<T>, value: T): Promise<T> {
  return writeInTurns(value, shapeOf(schema)) as unknown as Promise<T>
}
