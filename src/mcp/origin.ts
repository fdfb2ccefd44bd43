// Which browser origins may drive /mcp. A page of the host itself may (the admin pages, a local tool served beside
// them); any other page may not unless CORS_ORIGINS lists it. "Itself" comes from what the host knows, never from the
// request's Host header: a DNS-rebinding page (evil.example resolved to 127.0.0.1) sends Host and Origin that agree
// with each other but name evil.example, which is not one of these.
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const
const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' }

/** scheme://host:port with the port always written, or null for what is not an http(s) origin (`null`, file:). */
function normalized(origin: string): string | null {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return null
  }
  const port = url.port || DEFAULT_PORT[url.protocol]
  if (!port) return null
  return `${url.protocol}//${url.hostname.toLowerCase()}:${port}`
}

/** The host's own origins: PUBLIC_URL's, and http on the port the request arrived at under the loopback names and the listen address. */
export function ownOrigins(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, localPort: number | undefined): string[] {
  const port = localPort ?? config.port
  const names: string[] = [...LOOPBACK_NAMES]
  if (config.host !== '0.0.0.0' && config.host !== '::') names.push(config.host.includes(':') ? `[${config.host}]` : config.host)
  const own = names.map((name) => `http://${name}:${port}`)
  if (config.publicUrl) own.push(config.publicUrl)
  return own
}

/** Whether a request with this Origin header may use /mcp (a request without one — no browser — always may). */
export function originMayUseMcp(
  origin: string,
  req: Pick<FastifyRequest, 'socket'>,
  config: Pick<Config, 'publicUrl' | 'host' | 'port' | 'corsOrigins'>,
): boolean {
  const seen = normalized(origin)
  if (seen === null) return false
  const allowed = [...config.corsOrigins, ...ownOrigins(config, req.socket?.localPort)]
  return allowed.some((candidate) => normalized(candidate) === seen)
}
