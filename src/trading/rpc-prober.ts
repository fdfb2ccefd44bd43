// Background probing of upstream RPC endpoints with undici: latency percentiles, success rate and last result per URL.
//
// How a URL is probed (decided per URL, from its fragment, which is never sent):
//   - default: a JSON-RPC 2.0 POST of `eth_blockNumber` (no params). Success is HTTP 2xx with a JSON-RPC 2.0 body carrying
//     `result`; a hex result is reported as `block_height`. A JSON-RPC `error`, a non-JSON or non-JSON-RPC body, or any
//     other HTTP status is a failure. If the server answers the POST with 404, 405 or 501 (it does not speak JSON-RPC
//     there), the same probe falls back to a plain GET, and the URL is probed by GET from then on.
//   - `#jsonrpc=<method>`: JSON-RPC with that method instead (e.g. `#jsonrpc=getblockcount`, `#jsonrpc=getSlot`).
//   - `#get`: plain GET only; any 2xx is a success.
// Every request has a headers and a body timeout; probes of one URL never overlap (a round skips a URL still in flight).
import { publicEndpointUrl, redactEndpointUrl } from '../http/redact.js'
import { probeGet, probeJsonRpc, type ProbeHttp, type ProbeResult } from './rpc-requests.js'

export type ProbeMode = 'json-rpc' | 'http-get'

export interface ProbeSample {
  at: number
  ok: boolean
  latencyMs: number
  error: string | null
  result: ProbeResult | null
}

export type { ProbeResult } from './rpc-requests.js'

export interface EndpointSnapshot {
  url: string
  mode: ProbeMode
  method: string | null
  samples: number
  window: number
  latency_ms: { p50: number | null; p95: number | null; last: number | null }
  success_rate: number | null
  healthy: boolean
  last_probe_at: string | null
  last_ok_at: string | null
  last_error: string | null
  last_error_at: string | null
  last_result: ProbeResult | null
}

export interface RpcSnapshot {
  configured: boolean
  interval_ms: number
  timeout_ms: number
  window: number
  rounds: number
  endpoints: EndpointSnapshot[]
}

export interface RpcProber {
  start(): void
  /** Probes every endpoint not already in flight, once; resolves when those probes have finished. */
  probeOnce(): Promise<void>
  snapshot(): RpcSnapshot
  /** The healthy endpoint with the lowest p50 (ties: higher success rate), or null. */
  best(): EndpointSnapshot | null
  stop(): Promise<void>
}

export interface RpcProberOptions {
  /** Shown as scheme://host:port only (they may hold credentials). */
  endpoints: readonly string[]
  /** Declared free of secrets by the operator: shown in full. */
  publicEndpoints?: readonly string[]
  intervalMs: number
  /** Headers and body timeout of each request; default intervalMs × 4, kept within 1–3 s. */
  timeoutMs?: number
  /** Samples kept per endpoint. */
  window?: number
  /** Largest response body read; longer bodies are a failure. */
  maxBodyBytes?: number
}

interface EndpointState {
  url: string
  display: string
  mode: ProbeMode | 'auto'
  method: string
  samples: ProbeSample[]
  inFlight: Promise<void> | null
}

const DEFAULT_WINDOW = 20
const DEFAULT_METHOD = 'eth_blockNumber'

export function createRpcProber(options: RpcProberOptions): RpcProber {
  const window = options.window ?? DEFAULT_WINDOW
  const timeoutMs = options.timeoutMs ?? Math.min(3000, Math.max(1000, options.intervalMs * 4))
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024
  const abort = new AbortController()
  // undici (~0.3 s of start-up to import) loads with the first probe: most hosts configure no endpoint
  let httpClient: Promise<ProbeHttp> | null = null
  const httpOf = () => (httpClient ??= import('undici').then(({ Agent, request }) => ({
    agent: new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs }),
    request,
    signal: abort.signal,
    maxBodyBytes,
  })))
  const states: EndpointState[] = [
    ...options.endpoints.map((raw) => parseEndpoint(raw, redactEndpointUrl)),
    ...(options.publicEndpoints ?? []).map((raw) => parseEndpoint(raw, publicEndpointUrl)),
  ]
  let timer: NodeJS.Timeout | null = null
  let rounds = 0
  let stopped = false
  let rpcId = 0

  async function probe(state: EndpointState): Promise<void> {
    const at = Date.now()
    const started = performance.now()
    let sample: ProbeSample
    try {
      const http = await httpOf()
      let result: ProbeResult
      if (state.mode === 'http-get') {
        result = await probeGet(http, state.url)
      } else {
        const outcome = await probeJsonRpc(http, state.url, state.method, ++rpcId)
        if (outcome === 'not-json-rpc-here' && state.mode === 'auto') {
          state.mode = 'http-get'
          result = await probeGet(http, state.url)
        } else if (outcome === 'not-json-rpc-here') {
          throw new Error('HTTP status says the URL does not serve JSON-RPC')
        } else {
          state.mode = 'json-rpc'
          result = outcome
        }
      }
      sample = { at, ok: true, latencyMs: performance.now() - started, error: null, result }
    } catch (err) {
      sample = { at, ok: false, latencyMs: performance.now() - started, error: describeError(err).replaceAll(state.url, state.display), result: null }
    }
    if (stopped) return
    state.samples.push(sample)
    if (state.samples.length > window) state.samples.shift()
  }

  function probeRound(): Promise<void> {
    if (stopped) return Promise.resolve()
    rounds++
    const running = states.map((state) => {
      if (!state.inFlight) state.inFlight = probe(state).finally(() => { state.inFlight = null })
      return state.inFlight
    })
    return Promise.all(running).then(() => undefined)
  }

  return {
    start() {
      if (timer || stopped || states.length === 0) return
      void probeRound()
      timer = setInterval(() => void probeRound(), options.intervalMs)
      timer.unref()
    },
    probeOnce: probeRound,
    snapshot: () => ({
      configured: states.length > 0,
      interval_ms: options.intervalMs,
      timeout_ms: timeoutMs,
      window,
      rounds,
      endpoints: states.map((state) => snapshotOf(state, window)),
    }),
    best: () => pickBest(states.map((state) => snapshotOf(state, window))),
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      timer = null
      abort.abort()
      await Promise.allSettled(states.map((s) => s.inFlight))
      if (httpClient) await (await httpClient).agent.close()
    },
  }
}

/** The healthy endpoint with the lowest p50; ties go to the higher success rate, then to the earlier URL. */
export function pickBest(endpoints: readonly EndpointSnapshot[]): EndpointSnapshot | null {
  const healthy = endpoints.filter((s) => s.healthy && s.latency_ms.p50 !== null)
  healthy.sort((a, b) => a.latency_ms.p50! - b.latency_ms.p50! || (b.success_rate ?? 0) - (a.success_rate ?? 0))
  return healthy[0] ?? null
}

function snapshotOf(state: EndpointState, window: number): EndpointSnapshot {
  const samples = state.samples
  const okLatencies = samples.filter((s) => s.ok).map((s) => s.latencyMs).sort((a, b) => a - b)
  const last = samples.at(-1)
  const lastOk = samples.findLast((s) => s.ok)
  const lastErr = samples.findLast((s) => !s.ok)
  const successRate = samples.length ? okLatencies.length / samples.length : null
  return {
    url: state.display,
    mode: state.mode === 'auto' ? 'json-rpc' : state.mode,
    method: state.mode === 'http-get' ? null : state.method,
    samples: samples.length,
    window,
    latency_ms: {
      p50: round3(nearestRank(okLatencies, 0.5)),
      p95: round3(nearestRank(okLatencies, 0.95)),
      last: last ? round3(last.latencyMs) : null,
    },
    success_rate: successRate,
    healthy: Boolean(last?.ok) && successRate !== null && successRate >= 0.5,
    last_probe_at: last ? new Date(last.at).toISOString() : null,
    last_ok_at: lastOk ? new Date(lastOk.at).toISOString() : null,
    last_error: lastErr?.error ?? null,
    last_error_at: lastErr ? new Date(lastErr.at).toISOString() : null,
    last_result: lastOk?.result ?? null,
  }
}

function parseEndpoint(raw: string, display: (url: URL) => string): EndpointState {
  const url = new URL(raw)
  const fragment = url.hash.slice(1)
  url.hash = ''
  let mode: EndpointState['mode'] = 'auto'
  let method = DEFAULT_METHOD
  if (fragment === 'get') mode = 'http-get'
  else if (fragment.startsWith('jsonrpc=') && fragment.length > 'jsonrpc='.length) {
    mode = 'json-rpc'
    method = decodeURIComponent(fragment.slice('jsonrpc='.length))
  }
  return { url: url.toString(), display: display(url), mode, method, samples: [], inFlight: null }
}

function nearestRank(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

const round3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000)

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as Error & { code?: string }).code
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return (code ? `${code}: ${err.message}` : err.message).slice(0, 300) + cause.slice(0, 200)
}
