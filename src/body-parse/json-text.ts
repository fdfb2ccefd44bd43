// The host's rules for JSON text, shared by the body parser of both surfaces and by /cli's --json values: nesting
// depth counted before parsing, numbers that overflow to ±Infinity refused after it.
import { Refusal } from '../http/refusal.js'

/** JSON_MAX_DEPTH's default (src/config.ts), for parsers that have no configuration at hand. */
export const DEFAULT_JSON_MAX_DEPTH = 10_000
/**
 * JSON_MAX_VALUES's default: parsing costs per value (strings cost per byte, far less), so values are what is bounded.
 * The parse itself runs in the mill, but the value's structured clone back, its validation, the handler's
 * pass over it and the answer each cost the loop about 10 ms per 100k values (bench:hostile, "clauses" rows): with
 * 150k a client looping the largest accepted clause arrays keeps health's p99 under the 50 ms target; 200k held it at
 * 50–55 ms, 500k at 90–110 (each turn 25–60 ms, GC included).
 */
export const DEFAULT_JSON_MAX_VALUES = 150_000

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

const COMMA = 0x2c

/**
 * What one object member counts toward JSON_MAX_VALUES: a property costs the loop about four array items to clone
 * back from the mill, list and write (a pin of 200k keys held it 110–130 ms a stretch, 200k array items 20–40).
 * Kept for every route: a large body that an operation reads in the mill (/pin, /diff, /quiz, /jsonsat, …) no longer
 * costs the loop that, but a wide object in a body still crosses back as one where its route takes values.
 */
export const OBJECT_MEMBER_VALUES = 4

export interface JsonTextShape {
  /** The deepest nesting of arrays/objects. */
  depth: number
  /** Values in arrays and objects, counted by their openings and commas (an object's members OBJECT_MEMBER_VALUES each). */
  values: number
}

/**
 * The shape of `text`, counted outside strings in one pass that stops as soon as either count is past its limit: a
 * million-deep body costs the scan of its first `maxDepth` openings, 13 MB of clause arrays the scan of `maxValues`
 * commas, never a parse. Strings are skipped whole, so a 15 MB string costs a pass and adds one value.
 */
export function scanJsonText(text: string, maxDepth: number, maxValues: number): JsonTextShape {
  let depth = 0
  let deepest = 0
  let values = 0
  // inObject[d]: whether the container open at depth d is an object (its members count OBJECT_MEMBER_VALUES each).
  const inObject: boolean[] = [false]
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Skip the string: it ends at the next quote behind an even run of backslashes. Native indexOf finds quotes many
      // times faster than a loop over every character (a 15 MB string held the loop ~50 ms); each backslash run is
      // read once, so the skip stays linear.
      let end = i
      for (;;) {
        end = text.indexOf('"', end + 1)
        if (end === -1) {
          end = n
          break
        }
        let slashes = 0
        for (let k = end - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++
        if ((slashes & 1) === 0) break
      }
      i = end
    } else if (c === COMMA) {
      if ((values += inObject[depth] ? OBJECT_MEMBER_VALUES : 1) > maxValues) break
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if ((values += c === OPEN_BRACE ? OBJECT_MEMBER_VALUES : 1) > maxValues) break
      inObject[++depth] = c === OPEN_BRACE
      if (depth > deepest) {
        deepest = depth
        if (deepest > maxDepth) break
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return { depth: deepest, values }
}

/**
 * A JSON number overflows to ±Infinity only with an exponent of three digits or more, or with 309 or more integer
 * digits. Bodies without either (nearly all) skip the walk over the parsed value.
 */
const MAY_OVERFLOW = /[eE][+]?0*[1-9]\d{2}|\d{309}/

/** The path of the first non-finite number in a parsed value, or null. Iterative: depth is already bounded, but cheap. */
export function firstNonFinite(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '(root)']]
  while (stack.length > 0) {
    const [node, path] = stack.pop()!
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return path
    } else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push([node[i], `${path}[${i}]`])
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) stack.push([(node as Record<string, unknown>)[key], `${path}.${key}`])
    }
  }
  return null
}

/** Parses JSON text under the host's rules; throws a Refusal for what the rules refuse. */
export function parseJsonText(
  text: string,
  maxDepth: number = DEFAULT_JSON_MAX_DEPTH,
  parse: (text: string) => unknown = JSON.parse,
  maxValues: number = DEFAULT_JSON_MAX_VALUES,
): unknown {
  return parseJsonShaped(text, maxDepth, parse, maxValues).value
}

/** parseJsonText, with the shape its scan found. */
export function parseJsonShaped(
  text: string,
  maxDepth: number,
  parse: (text: string) => unknown,
  maxValues: number,
): { value: unknown; shape: JsonTextShape } {
  const shape = scanJsonText(text, maxDepth, maxValues)
  const { depth, values } = shape
  if (values > maxValues) {
    throw new Refusal('over_limit', `the body holds more than ${maxValues} JSON values (JSON_MAX_VALUES; an object member counts ${OBJECT_MEMBER_VALUES}); send bulk data as text (DIMACS, CSV, content) instead of arrays`, {
      hints: { limit: 'JSON_MAX_VALUES', value: maxValues },
    })
  }
  if (depth > maxDepth) {
    throw new Refusal('over_limit', `the body is nested deeper than the limit of ${maxDepth} levels (JSON_MAX_DEPTH)`, {
      hints: { limit: 'JSON_MAX_DEPTH', value: maxDepth },
    })
  }
  const value = parse(text)
  if (MAY_OVERFLOW.test(text)) {
    const at = firstNonFinite(value)
    if (at !== null) {
      throw new Refusal('invalid_input', `the number at ${at} is too large for a JSON number (it would be ±Infinity)`, {
        issues: [{ path: at, message: 'a number that overflows to ±Infinity is not a finite JSON number' }],
      })
    }
  }
  return { value, shape }
}

