// Content negotiation on Accept (RFC 9110 §12.5.1): one function for every route that offers more than JSON.
import Negotiator from 'negotiator'

// The offered media type the Accept prefers, or null when it allows none of them. The ranking is negotiator's: q first
// (q=0 refuses), then the most specific matching range (text/plain over text/* over */*), then the order the Accept
// lists them; offers still tied (both under */*) go to the earlier offer, and an absent or blank Accept gets
// offered[0]. Offers may carry parameters ("; charset=utf-8"): they are matched on type/subtype and returned as given.
export function negotiate(accept: string | undefined, offered: readonly string[]): string | null {
  if (offered.length === 0) return null
  if (accept === undefined || accept.trim() === '') return offered[0]!
  const bare = offered.map((type) => type.split(';', 1)[0]!.trim().toLowerCase())
  const [best] = new Negotiator({ headers: { accept } }).mediaTypes(bare)
  return best === undefined ? null : offered[bare.indexOf(best)]!
}
