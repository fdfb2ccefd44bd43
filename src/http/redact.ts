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

/** Longest URL a log line or an error body repeats: a client controls the URL, and 404s must not cost kilobytes of log each. */
export const MAX_SHOWN_URL = 256

/** A request URL redacted and cut to MAX_SHOWN_URL characters (with the full length said when cut). */
export function shortUrl(url: string): string {
  const redacted = redactUrl(url)
  return redacted.length <= MAX_SHOWN_URL ? redacted : `${redacted.slice(0, MAX_SHOWN_URL)}…(${redacted.length} chars)`
}

/**
 * An upstream endpoint URL as responses, logs and /env may show it: scheme, host and port only. Providers put keys in
 * paths (`/v3/<hex>`, `/v1/mySecretKey42`), queries and fragments, and no heuristic tells a short key from a route word,
 * so everything after the authority is hidden (`/***` says something was) and the user and password are dropped.
 * The real URL stays inside the process (the prober uses it); URLs the operator lists in RPC_PUBLIC_ENDPOINTS are shown
 * by publicEndpointUrl instead.
 */
export function redactEndpointUrl(raw: string | URL): string {
  const url = new URL(raw)
  const hidden = url.pathname !== '/' || url.search !== '' || url.hash !== ''
  return `${url.origin}/${hidden ? REDACTION_CENSOR : ''}`
}

/** An endpoint the operator declared public (RPC_PUBLIC_ENDPOINTS): shown in full, but a user or password never. */
export function publicEndpointUrl(raw: string | URL): string {
  const url = new URL(raw)
  if (url.username) url.username = REDACTION_CENSOR
  if (url.password) url.password = REDACTION_CENSOR
  return url.toString()
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

/** A database URL as answers and logs may show it: scheme, host, port and database name; user, password and options dropped. */
export function databaseLocation(raw: string): string {
  const url = new URL(raw)
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`
}
