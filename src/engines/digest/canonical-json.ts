// RFC 8785 JSON Canonicalization Scheme (JCS): one byte string per JSON value, so equal values hash equally.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export class NotJsonError extends Error {
  override name = 'NotJsonError'
}

/**
 * Object keys sorted by UTF-16 code units, no whitespace, numbers as ECMAScript prints them (which is what
 * JSON.stringify does for finite numbers), strings escaped as JSON.stringify escapes them.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = []
  write(value, out)
  return out.join('')
}

function write(value: unknown, out: string[]): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    out.push(JSON.stringify(value))
    return
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonError(`${value} is not a JSON number`)
    out.push(JSON.stringify(value))
    return
  }
  if (Array.isArray(value)) {
    out.push('[')
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',')
      write(value[i], out)
    }
    out.push(']')
    return
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort()
    out.push('{')
    keys.forEach((key, i) => {
      if (i > 0) out.push(',')
      out.push(JSON.stringify(key), ':')
      write((value as Record<string, unknown>)[key], out)
    })
    out.push('}')
    return
  }
  throw new NotJsonError(`a ${typeof value} is not a JSON value`)
}

/** The canonical text of a value nested at most maxDepth levels, or null for one nested deeper (never recursed into). */
export function canonicalWithin(value: unknown, maxDepth: number): string | null {
  return jsonDepth(value, maxDepth) > maxDepth ? null : canonicalJson(value)
}

/** Nesting depth of a JSON value (a scalar is 0), computed without recursion and stopping once past `limit`. */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  if (value === null || typeof value !== 'object') return 0
  // Containers only, their depths beside them: a pair per node, or a push per leaf, made a 50k-key object cost the
  // loop ~30 ms of allocation and collection.
  const nodes: object[] = [value]
  const depths: number[] = [1]
  let deepest = 0
  while (nodes.length > 0) {
    const node = nodes.pop()!
    const depth = depths.pop()!
    if (depth > deepest) deepest = depth
    if (deepest > limit) return deepest
    const children = Array.isArray(node) ? node : Object.values(node)
    for (let i = 0; i < children.length; i++) {
      const child: unknown = children[i]
      if (child !== null && typeof child === 'object') {
        nodes.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return deepest
}

/** The same value with every object's keys in JCS order, printed with a 2-space indent and a final newline. */
export function canonicalPretty(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n'
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}
