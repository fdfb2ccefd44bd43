// The URL censoring shared by logs, error bodies, /env and RPC displays: secrets never leave the process.

export const REDACTION_CENSOR = '***'

/** Query parameters whose values are secrets (API keys and tokens often ride in URLs), by name without punctuation. */
const SECRET_QUERY_KEY = /(token|key|secret|password|passwd|pwd|auth|authorization|signature|sig|credentials?|session)$/i

/** A request URL as logs and error bodies may show it: values of secret-looking query parameters censored. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  const params = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=')
    if (eq === -1) return part
    return SECRET_QUERY_KEY.test(decodeLoosely(part.slice(0, eq)).replace(/[^a-z0-9]/gi, '')) ? `${part.slice(0, eq)}=${REDACTION_CENSOR}` : part
  })
  return `${url.slice(0, q)}?${params.join('&')}`
}

/**
 * A path segment that looks like an API key: RPC providers put them there (`/v3/<32 hex>` at Infura, `/v2/<key>` at
 * Alchemy, `/<token>/` at QuickNode). Long runs of letters and digits mixed; route words like `mainnet` never match.
 */
const KEY_LIKE_SEGMENT = /^(?=[^/]*\d)(?=[^/]*[a-z])[a-z0-9_-]{20,}$/i

/**
 * An upstream endpoint URL as responses, logs and /env may show it: user and password, every query value and key-like
 * path segments censored. The real URL stays inside the process (the prober uses it).
 */
export function redactEndpointUrl(raw: string | URL): string {
  const url = new URL(raw)
  if (url.username) url.username = REDACTION_CENSOR
  if (url.password) url.password = REDACTION_CENSOR
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, REDACTION_CENSOR)
  url.pathname = url.pathname.split('/').map((segment) => (KEY_LIKE_SEGMENT.test(segment) ? REDACTION_CENSOR : segment)).join('/')
  return url.toString()
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}
