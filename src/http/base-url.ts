// The address a client reached this host at, for the runnable lines the host prints (/help's curl lines).
import type { FastifyRequest } from 'fastify'

/** The fields of the host's Config (config.ts) that say where it is reached: PUBLIC_URL, HOST and PORT. */
export interface ListenAddress {
  readonly publicUrl: string | null
  readonly host: string
  readonly port: number
}

/** A Host header we repeat back: a name or address and an optional port, nothing else. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * PUBLIC_URL when set (behind a proxy the request's own address is the proxy's view); else the request's scheme and
 * Host (X-Forwarded-* only with TRUST_PROXY, as Fastify reads them); else (an odd Host, or no request: a job) the listen address.
 */
export function baseUrlOf(req: FastifyRequest | null, config: ListenAddress): string {
  if (config.publicUrl) return config.publicUrl
  const host = req?.host
  if (req && host && PLAIN_HOST.test(host)) return `${req.protocol}://${host}`
  const listen = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  return `http://${listen.includes(':') ? `[${listen}]` : listen}:${config.port}`
}
