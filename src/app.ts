// buildApp(): the whole host as one Fastify instance — plugins, the three surfaces, the docs. It never listens.
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { lenientQueryValidatorCompiler } from './plugins/validator.js'
import { clientErrorHandler } from './plugins/client-errors.js'
import { UnmatchedRequestLog, type UnmatchedLogOptions } from './plugins/unmatched-log.js'
import { zodSerializerCompiler } from './plugins/serializer.js'
import type { Config } from './config.js'
import { loggerOptions, type LogDestination } from './logger.js'
import { openStore, storeOptionsOf, type Store } from './store/index.js'
import { createMill, type Mill } from './mill/pool.js'
import routeTablePlugin from './plugins/route-table.js'
import storePlugin from './plugins/store.js'
import millPlugin from './plugins/mill.js'
import jobsPlugin from './plugins/jobs.js'
import pinUpkeepPlugin from './plugins/pin-upkeep.js'
import admissionPlugin, { type Admission } from './plugins/admission.js'
import limitsPlugin from './plugins/limits.js'
import redisPlugin from './plugins/redis.js'
import { frameworkErrorHandler } from './plugins/framework-errors.js'
import corsPlugin from './plugins/cors.js'
import docsPlugin from './plugins/docs.js'
import probesPlugin from './plugins/probes.js'
import jsonBodyPlugin from './plugins/json-body.js'
import memoryAdmissionPlugin from './plugins/memory-admission.js'
import callerPlugin from './caller/index.js'
import { CALLER_PREFIX } from './http/envelope.js'
import authPlugin from './plugins/auth.js'
import accessPlugin from './plugins/access.js'
import { createCallerCounters, type CallerCounters } from './caller/counters.js'
import { systemClock, type Clock } from './sched/clock.js'
import { registry as defaultRegistry } from './caller/registry.js'
import { readsBodyInMill, type Registry } from './caller/operation.js'
import tradingPlugin from './trading/plugin.js'
import { createTradingContext } from './trading/context.js'
import mcpPlugin from './mcp/plugin.js'
import { problemErrorHandler, problemNotFoundHandler } from './plugins/problem.js'
import metricsPlugin from './plugins/metrics.js'
import adminPlugin from './admin/plugin.js'
import adminApi from './admin/api.js'
import adminCollectorsPlugin, { type AdminCollectorOptions } from './admin/collectors.js'
import accessApi from './access/api.js'
import { isInternal } from './access/internal.js'
import type { SeedLevel } from './trading/seed.js'

declare module 'fastify' {
  interface FastifyInstance {
    callerCounters: CallerCounters
    clock: Clock
    config: Config
    /** The caller's operations: listings and the admin's truth summary read them from here. */
    registry: Registry
  }
}

export interface BuildOptions {
  config: Config
  /** Defaults to the store the config names: PostgreSQL at DATABASE_URL, else the SQLite file at databasePath. */
  store?: Store
  /** Defaults to a pool of config.millThreads workers. */
  mill?: Mill
  clock?: Clock
  /** Overrides the logger derived from config (tests pass false). */
  logger?: boolean
  /** How many unmatched requests each window logs in full (default 5 a minute; tests that read every 404's line raise it). */
  unmatchedLog?: UnmatchedLogOptions
  /** Logs at config.logLevel to this destination instead of stdout (tests capture the lines); wins over `logger`. */
  logStream?: LogDestination
  registry?: Registry
  /** How much synthetic market data a first start seeds (tests use 'small'). */
  tradingSeed?: SeedLevel
  /** Options of the admin JSON routes (tests: a fake python3, another tree to analyse). */
  admin?: Pick<AdminCollectorOptions, 'pythonProbe' | 'rootDir'>
  /** Set on the throwaway host the known-answer tests run in (it has no self-test host of its own). */
  selfTestSandbox?: boolean
  /** The occupancy of another host to answer with instead of measuring one (the self-test host borrows its parent's). */
  admission?: Admission
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
  const unmatchedLog = new UnmatchedRequestLog(opts.unmatchedLog)
  const app = Fastify({
    logController: unmatchedLog,
    logger: opts.logStream ? loggerOptions(config, opts.logStream) : (opts.logger ?? loggerOptions(config)),
    bodyLimit: config.bodyLimitBytes,
    // Read here rather than through requestIdHeader, which would take any value verbatim.
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    // In-flight keep-alive requests still get enveloped answers while draining; new connections are closed.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A first start seeds 100k+ bars in the trading plugin, and replicas starting together on one PostgreSQL database
    // wait for the one seeding: Fastify's default 10 s per plugin ended such starts on a loaded machine.
    pluginTimeout: 120_000,
    // The first TRUST_PROXY hops are proxies, never all (`true` takes the leftmost X-Forwarded-For entry, the client's own).
    trustProxy: config.trustProxy > 0 ? (_address: string, hop: number) => hop < config.trustProxy : false,
    // Malformed URLs never reach routing or hooks; this answers them in the surface's format and counts them.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  })
  app.setValidatorCompiler(lenientQueryValidatorCompiler)
  app.setSerializerCompiler(zodSerializerCompiler({ tripwire: config.loopTripwire }))

  const store = opts.store ?? await openStore(storeOptionsOf(config))
  const mill = opts.mill ?? createMill({ threads: config.millThreads, maxQueue: config.millQueue, nice: config.millNice, perOwner: config.jobsPerClient })
  const counters = createCallerCounters()
  app.decorate('unmatchedLog', unmatchedLog)
  app.decorate('config', config)
  app.decorate('clock', clock)
  app.decorate('callerCounters', counters)
  app.decorate('registry', registry)
  // Outside /api/v1 (which envelopes its errors) the host answers errors as RFC 9457 problems, e.g. a wrong method on /health.
  app.setErrorHandler(problemErrorHandler)
  app.setNotFoundHandler(problemNotFoundHandler)

  await app.register(routeTablePlugin)
  await app.register(jsonBodyPlugin, {
    maxDepth: config.jsonMaxDepth,
    maxValues: config.jsonMaxValues,
    mill,
    deadlineMs: config.slowClientMs,
    tripwire: config.loopTripwire,
    readsInMill: (req) => {
      const op = registry.byName(req.routeOptions.config.operation ?? '')
      return op !== undefined && readsBodyInMill(op)
    },
  })
  await app.register(storePlugin, { store })
  await app.register(redisPlugin, { url: config.redisUrl, prefix: config.redisPrefix })
  await app.register(authPlugin)
  await app.register(millPlugin, { mill })
  await app.register(jobsPlugin, { config, clock })
  await app.register(pinUpkeepPlugin, { clock })
  if (opts.admission) {
    // A self-test host measures nothing of its own: it answers with the occupancy of the host it runs inside.
    const borrowed = opts.admission
    await app.register(fp(async (a: FastifyInstance) => { a.decorate('admission', borrowed) }, { name: 'ncm-admission', dependencies: ['ncm-mill'] }))
  } else {
    await app.register(admissionPlugin, { maxEventLoopDelayMs: config.maxEventLoopDelayMs })
  }
  await app.register(limitsPlugin, { rateLimitPerMin: config.rateLimitPerMin, exempt: isInternal, redis: app.redis })
  // After the rate limit (a flood of bad bearers is counted before a grant is looked up), before any route.
  await app.register(accessPlugin)
  await app.register(memoryAdmissionPlugin, {
    smallBodyBytes: config.bodyLimitBytes,
    largeBytes: config.largeBodyLimitBytes,
    totalBytes: config.memoryAdmissionBytes,
    perClientBytes: config.memoryPerClientBytes,
    slowClientMs: config.slowClientMs,
  })
  await app.register(corsPlugin, { origins: config.corsOrigins })
  await app.register(metricsPlugin, { memoryBudgetBytes: config.memoryBudgetBytes })
  await app.register(docsPlugin)
  await app.register(probesPlugin)
  await app.register(adminCollectorsPlugin, {
    ...opts.admin,
    ...(opts.selfTestSandbox ? {} : { selfTestHost: () => buildSelfTestHost(opts, app, clock, registry) }),
  })

  // One trading context (research service, bars cache, prober, system view) for the trading routes and the MCP tools.
  const trading = createTradingContext({ config, clock, store, mill: app.mill, admission: app.admission, auth: app.auth })
  await app.register(callerPlugin, {
    prefix: CALLER_PREFIX,
    // The admin JSON routes live under /api/v1/admin and share the caller envelope and error handler.
    children: [{ plugin: adminApi, prefix: '/admin' }, { plugin: accessApi, prefix: '/admin' }],
  })
  await app.register(tradingPlugin, { seed: opts.tradingSeed ?? 'full', context: trading })
  await app.register(mcpPlugin, { trading })
  await app.register(adminPlugin)
  return app
}

/**
 * The host the known-answer tests run in: the same routes, built by this function, over a throwaway in-memory store
 * (so a self-test never writes a dataset or a run into the user's data), borrowing this host's mill (closing the
 * sandbox leaves it running) and occupancy, without rate limit, Redis, RPC probing or seeded data.
 */
async function buildSelfTestHost(opts: BuildOptions, parent: FastifyInstance, clock: Clock, registry: Registry): Promise<FastifyInstance> {
  const mill = parent.mill
  const borrowed: Mill = {
    run: mill.run.bind(mill),
    isSaturated: () => mill.isSaturated(),
    agents: () => mill.agents(),
    stats: () => mill.stats(),
    memory: () => mill.memory?.() ?? { workers: 0, heap_bytes: 0 },
    close: async () => {},
  }
  const app = await buildApp({
    // No REDIS_URL either: the sandbox's jobs and limits stay in its own process; its store is in-memory SQLite.
    config: { ...opts.config, databasePath: ':memory:', databaseUrl: null, rateLimitPerMin: 0, rpcEndpoints: [], redisUrl: null },
    mill: borrowed,
    // A second event-loop sampler would never be released (under-pressure does not disable its histogram on close)
    // and disturbed the parent's readings: the sandbox answers with the parent's occupancy instead.
    admission: parent.admission,
    clock,
    registry,
    logger: false,
    tradingSeed: 'none',
    selfTestSandbox: true,
  })
  await app.ready()
  return app
}
