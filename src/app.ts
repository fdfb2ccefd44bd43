// buildApp(): the whole host as one Fastify instance — plugins, the three surfaces, the docs. It never listens.
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { zodSerializerCompiler } from './plugins/serializer.js'
import type { Config } from './config.js'
import { loggerOptions, type LogDestination } from './logger.js'
import { openStore, type Store } from './store/index.js'
import { createMill, type Mill } from './mill/pool.js'
import routeTablePlugin from './plugins/route-table.js'
import storePlugin from './plugins/store.js'
import millPlugin from './plugins/mill.js'
import jobsPlugin from './plugins/jobs.js'
import admissionPlugin from './plugins/admission.js'
import limitsPlugin from './plugins/limits.js'
import { frameworkErrorHandler } from './plugins/framework-errors.js'
import corsPlugin from './plugins/cors.js'
import docsPlugin from './plugins/docs.js'
import jsonBodyPlugin from './plugins/json-body.js'
import callerPlugin, { CALLER_PREFIX } from './caller/index.js'
import { createAuthenticator } from './access/auth.js'
import { createCallerCounters, type CallerCounters } from './caller/counters.js'
import { systemClock, type Clock } from './clock.js'
import { registry as defaultRegistry } from './caller/registry.js'
import type { Registry } from './caller/operation.js'
import tradingPlugin from './trading/plugin.js'
import { problemErrorHandler, problemNotFoundHandler } from './plugins/problem.js'
import metricsPlugin from './plugins/metrics.js'
import adminPlugin from './admin/plugin.js'
import adminApi, { type AdminApiOptions } from './admin/api.js'
import { isInternal } from './admin/internal.js'
import type { SeedLevel } from './trading/seed.js'

declare module 'fastify' {
  interface FastifyInstance {
    callerCounters: CallerCounters
    clock: Clock
    config: Config
  }
}

export interface BuildOptions {
  config: Config
  /** Defaults to a store opened at config.databasePath. */
  store?: Store
  /** Defaults to a pool of config.millThreads workers. */
  mill?: Mill
  clock?: Clock
  /** Overrides the logger derived from config (tests pass false). */
  logger?: boolean
  /** Logs at config.logLevel to this destination instead of stdout (tests capture the lines); wins over `logger`. */
  logStream?: LogDestination
  registry?: Registry
  /** How much synthetic market data a first start seeds (tests use 'small'). */
  tradingSeed?: SeedLevel
  /** Options of the admin JSON routes (tests: a fake python3, another tree to analyse). */
  admin?: Pick<AdminApiOptions, 'pythonProbe' | 'rootDir'>
}

/** What a client may send as its x-request-id: a short plain token, since ids end up in logs, headers and bodies. */
const CLIENT_REQUEST_ID = /^[\w.:@+=\/~-]{1,128}$/

/** The client's x-request-id when it is a plain token, else a fresh UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID()
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config } = opts
  const clock = opts.clock ?? systemClock
  const registry = opts.registry ?? defaultRegistry
  const app = Fastify({
    logger: opts.logStream ? loggerOptions(config, opts.logStream) : (opts.logger ?? loggerOptions(config)),
    bodyLimit: config.bodyLimitBytes,
    // Read here rather than through requestIdHeader, which would take any value verbatim.
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    // In-flight keep-alive requests still get enveloped answers while draining; new connections are closed.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    trustProxy: config.trustProxy,
    // Malformed URLs never reach routing or hooks; this answers them in the surface's format and counts them.
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(zodSerializerCompiler)

  const store = opts.store ?? openStore({ path: config.databasePath })
  const mill = opts.mill ?? createMill({ threads: config.millThreads, maxQueue: config.millQueue, nice: config.millNice })
  const counters = createCallerCounters()
  app.decorate('config', config)
  app.decorate('clock', clock)
  app.decorate('callerCounters', counters)
  // Outside /api/v1 (which envelopes its errors) the host answers errors as RFC 9457 problems, e.g. a wrong method on /health.
  app.setErrorHandler(problemErrorHandler)
  app.setNotFoundHandler(problemNotFoundHandler)

  await app.register(routeTablePlugin)
  await app.register(jsonBodyPlugin, { maxDepth: config.jsonMaxDepth })
  await app.register(storePlugin, { store })
  await app.register(millPlugin, { mill })
  await app.register(jobsPlugin, { config, clock })
  await app.register(admissionPlugin, { maxEventLoopDelayMs: config.maxEventLoopDelayMs })
  await app.register(limitsPlugin, { rateLimitPerMin: config.rateLimitPerMin, exempt: isInternal })
  await app.register(corsPlugin, { origins: config.corsOrigins })
  await app.register(metricsPlugin)
  await app.register(docsPlugin)

  await app.register(callerPlugin, {
    prefix: CALLER_PREFIX,
    config,
    clock,
    registry,
    counters,
    auth: createAuthenticator(config, store.db),
    // The admin JSON routes live under /api/v1/admin and share the caller envelope and error handler.
    children: [{ plugin: adminApi, prefix: '/admin', options: { ...opts.admin } }],
  })
  await app.register(tradingPlugin, { config, clock, seed: opts.tradingSeed ?? 'full' })
  await app.register(adminPlugin, { config, clock })
  return app as unknown as FastifyInstance
}
