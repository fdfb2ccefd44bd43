// RFC 6901 JSON Pointers: "/a~1b/0" ↔ ["a/b", "0"].

export class JsonPointerError extends Error {
  override name = 'JsonPointerError'
}

export const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1')

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => '/' + escapeToken(t)).join('')
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) {
    throw new JsonPointerError(`${JSON.stringify(pointer)} is not a JSON Pointer: it must be empty or start with "/"`)
  }
  return pointer.slice(1).split('/').map((token) => {
    const bad = /~(?![01])/.exec(token)
    if (bad) {
      throw new JsonPointerError(`${JSON.stringify(pointer)} has "~" not followed by 0 or 1 (write "~0" for "~" and "~1" for "/")`)
    }
    return token.replaceAll('~1', '/').replaceAll('~0', '~')
  })
}

/** An array index token: "0" or digits without a leading zero (RFC 6901 §4). */
export const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/
