// /api/v6: upstream RPC probing results and the command center's panels.
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { TradingContext } from '../context.js'
import { TAGS } from '../context.js'
import { PlatformProblem } from '../../plugins/problem.js'
import { problemResponses, tradingNotFound } from './common.js'

export default async function v6Routes(parent: FastifyInstance, ctx: TradingContext) {
  const app = parent.withTypeProvider<ZodTypeProvider>()
  const { prober, system, config } = ctx
  app.setNotFoundHandler(tradingNotFound)
  const tags = [TAGS.v6]

  app.get('/rpc/snapshot', {
    schema: {
      tags,
      summary: 'Upstream RPC endpoints (RPC_ENDPOINTS, RPC_PUBLIC_ENDPOINTS) probed in the background: p50/p95 latency, success rate, last error and result',
      description: 'Probes: JSON-RPC `eth_blockNumber` POST by default, GET fallback when the POST gets 404/405/501; per URL `#jsonrpc=<method>` or `#get`. ' +
        'A sliding window of the last samples per endpoint. None configured: `configured: false` and an empty list.',
      response: { 200: z.record(z.string(), z.unknown()) },
    },
  }, async () => ({ ...prober.snapshot() }))

  app.get('/rpc/best', {
    schema: {
      tags,
      summary: 'The healthy endpoint with the lowest p50 latency (ties: success rate); a problem when none is configured or healthy',
      response: { 200: z.record(z.string(), z.unknown()), ...problemResponses },
    },
  }, async () => {
    const snapshot = prober.snapshot()
    if (!snapshot.configured) {
      throw new PlatformProblem(404, 'rpc_not_configured', 'No RPC endpoint configured',
        'RPC_ENDPOINTS and RPC_PUBLIC_ENDPOINTS are empty: there is no endpoint to choose from', { configured: false })
    }
    const best = prober.best()
    if (!best) {
      const retryAfterS = Math.max(1, Math.ceil(config.rpcProbeIntervalMs / 1000))
      throw new PlatformProblem(503, 'no_healthy_endpoint', 'No healthy RPC endpoint',
        `none of the ${snapshot.endpoints.length} endpoints is healthy (latest probe succeeded and ≥ 50 % success over the window)`, {
          retry_after_s: retryAfterS,
          endpoints: snapshot.endpoints.map((e) => ({ url: e.url, samples: e.samples, success_rate: e.success_rate, last_error: e.last_error })),
        })
    }
    return { endpoint: best, healthy: snapshot.endpoints.filter((e) => e.healthy).length, configured: snapshot.endpoints.length, rounds: snapshot.rounds }
  })

  app.get('/command-center/panels', {
    schema: {
      tags,
      summary: 'Command-center panels: positions and P&L, latest signals, recent runs, datasets, system health, RPC, latest equity curve',
      response: { 200: z.record(z.string(), z.unknown()) },
    },
  }, async () => system.panels())
}
