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

export function loggerOptions(config: Pick<Config, 'logLevel'>): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '***' },
    serializers: {
      // Only the fields an operator needs; headers are not logged wholesale.
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        ip: req.ip,
      }),
    },
  }
}
