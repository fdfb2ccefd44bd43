// pino options for the host: level from config, secrets redacted, pretty output only on a TTY.
import type { FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'

/** Paths whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["idempotency-key"]',
  'req.headers["x-ncm-internal"]',
  'res.headers["set-cookie"]',
  'adminToken',
  'token',
  '*.token',
  '*.adminToken',
  '*.hmac_key',
]

export const REDACTION_CENSOR = '***'

/** Where log lines go instead of stdout: one JSON line per write. */
export interface LogDestination {
  write(line: string): void
}

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

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

/** `stream` replaces stdout as the destination (tests capture the lines). */
export function loggerOptions(config: Pick<Config, 'logLevel'>, stream?: LogDestination): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false
  return {
    level: config.logLevel,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACTED_PATHS, censor: REDACTION_CENSOR },
    serializers: {
      // Only the fields an operator needs; headers are not logged wholesale.
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        ip: req.ip,
      }),
    },
  }
}
