// The per-IP rate limit counted in this process's memory, as one synchronous step per request. Same answers as
// @fastify/rate-limit's in-memory store with our settings (fixed window from a client's first request, the same key,
// headers and refusal), without its three promises, its IP parse per request and its LRU bump on every hit.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createRequire } from 'node:module'

/** Clients remembered at once (the plugin's default cache size). */
const CLIENTS = 5000
/** The plugin's default: an IPv6 client is its /64. */
const IPV6_SUBNET = 64

interface Window {
  count: number
  startMs: number
}

export interface LocalLimiterOptions {
  max: number
  windowMs: number
  exempt?: ((req: FastifyRequest) => boolean) | undefined
  refusal: (retryAfterS: number, max: number) => Error
  now?: () => number
}

/** The plugin's own IPv6 normalisation, loaded with the first IPv6 client (the plugin costs ~40 ms to import). */
let normalizeIP: ((ip: string, subnet: number) => string) | null = null
const normalizeIPv6 = (ip: string): string =>
  (normalizeIP ??= (createRequire(import.meta.url)('@fastify/rate-limit') as typeof import('@fastify/rate-limit')).normalizeIP)(ip, IPV6_SUBNET)

/** The plugin's key: the IP lower-cased, an IPv6 address as its /64 (only a string with a colon can be one). */
export const clientKey = (ip: string): string => (ip.includes(':') ? normalizeIPv6(ip) : ip.toLowerCase())

/**
 * Counts `req` toward its client's window and sets the x-ratelimit-* headers; returns the refusal past the quota
 * (with retry-after set), null otherwise. Called once per request: by the root onRequest hook, or by hand for the
 * requests Fastify refuses before any hook runs.
 */
export function localLimiter(opts: LocalLimiterOptions): (req: FastifyRequest, reply: FastifyReply) => Error | null {
  const { max, windowMs, exempt, refusal } = opts
  const now = opts.now ?? Date.now
  const maxText = String(max)
  // Map order is window-start order: a client is moved to the end when its window restarts, so the first entry
  // is the one whose window began longest ago (most likely over), and that is the one dropped when full.
  const windows = new Map<string, Window>()
  return (req, reply) => {
    if (exempt?.(req)) return null
    const key = clientKey(req.ip)
    const nowMs = now()
    let w = windows.get(key)
    if (w === undefined || w.startMs + windowMs <= nowMs) {
      if (w === undefined) {
        if (windows.size >= CLIENTS) windows.delete(windows.keys().next().value!)
        w = { count: 0, startMs: nowMs }
      } else {
        windows.delete(key)
        w.count = 0
        w.startMs = nowMs
      }
      windows.set(key, w)
    }
    const current = ++w.count
    const resetS = Math.ceil((windowMs - (nowMs - w.startMs)) / 1000)
    reply.header('x-ratelimit-limit', maxText)
    if (current <= max) {
      reply.header('x-ratelimit-remaining', String(max - current))
      reply.header('x-ratelimit-reset', String(resetS))
      return null
    }
    reply.header('x-ratelimit-remaining', '0')
    reply.header('x-ratelimit-reset', String(resetS))
    reply.header('retry-after', String(resetS))
    return refusal(resetS, max)
  }
}
