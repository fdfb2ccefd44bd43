// What never reaches a log line: pino options with secrets redacted (the censoring itself lives in redact.ts).
import type { FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'
import { REDACTION_CENSOR, shortUrl } from './http/redact.js'

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

/** Where log lines go instead of stdout: one JSON line per write. */
export interface LogDestination {
  write(line: string): void
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
        url: shortUrl(req.url),
        ip: req.ip,
      }),
    },
  }
}
