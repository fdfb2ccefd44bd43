// Which names a request may address this host by. A DNS-rebinding page (evil.example resolved to 127.0.0.1 after it
// loaded) is same-origin with the host in its visitor's browser: it sends the requests and reads the answers, with the
// Host (and Origin) naming evil.example. It needs a DNS name it controls: an address, `localhost` (which browsers
// resolve to loopback themselves) and the names the host is configured with cannot be rebound by anyone else.
import { isIP } from 'node:net'
import type { Config } from '../config.js'

/** The hostname of a Host header (lowercase, IPv6 without brackets), or null when it is not one. */
function hostnameOf(host: string): string | null {
  let url: URL
  try {
    url = new URL(`http://${host}`)
  } catch {
    return null
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null
  const name = url.hostname.toLowerCase()
  return name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name
}

/** Whether a Host header names this host in a way no other party can rebind (an absent one: no browser sent it). */
export function addressedByOwnName(host: string | undefined, config: Pick<Config, 'host' | 'publicUrl'>): boolean {
  if (host === undefined) return true
  const name = hostnameOf(host)
  if (name === null) return false
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true
  if (name === config.host.toLowerCase()) return true
  return config.publicUrl !== null && name === new URL(config.publicUrl).hostname.toLowerCase()
}
