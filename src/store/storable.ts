// The one input rule at the store's edge: text a backend cannot store is refused before it is bound, on every backend
// alike. PostgreSQL refuses a NUL (U+0000) in text (SQLite takes it), so a NUL reaching either is the client's input
// and refused as such: a path parameter, a query, a cursor or a body member. Lone surrogates are not refused here:
// both backends store them as U+FFFD, the same bytes the host hashes (pins' digests stay true).
import { Refusal } from '../http/refusal.js'

const NUL = '\u0000'

/** Throws invalid_input when a string parameter holds a NUL; statement parameters are bound only after this. */
export function refuseUnstorable(params: readonly unknown[] | Readonly<Record<string, unknown>>): void {
  const values = Array.isArray(params) ? params : Object.values(params)
  for (const value of values) {
    if (typeof value === 'string' && value.includes(NUL)) {
      throw new Refusal('invalid_input', 'the input holds a NUL character (U+0000), which this host neither stores nor looks up: remove it', {
        hints: { character: 'U+0000', at: value.indexOf(NUL) },
      })
    }
  }
}
