// Decorates the instance with the Redis every replica shares (`app.redis`, null without REDIS_URL): one command
// connection for the limiter, event publishes and health; the job queue opens its own (src/jobs/bullmq-queue.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { coalesce } from '../sched/coalesce.js'
import { openRedis, probeRedis, readyWithin, type RedisClient, type RedisProbe } from '../redis/connection.js'

export interface SharedRedis {
  readonly url: string
  /** Every key this host writes starts with it (REDIS_PREFIX). */
  readonly prefix: string
  /** Fails fast while Redis is away (no offline queue): for the request path. */
  readonly commands: RedisClient
  probe(): Promise<RedisProbe>
}

declare module 'fastify' {
  interface FastifyInstance {
    redis: SharedRedis | null
  }
}

/** How long start waits for a first connection before serving anyway (degraded: the limiter counts in memory). */
const FIRST_CONNECT_MS = 3000

export default fp(
  async function redisPlugin(app: FastifyInstance, opts: { url: string | null; prefix: string }) {
    if (!opts.url) {
      app.decorate('redis', null)
      return
    }
    const { url, prefix } = opts
    const commands = openRedis(url, 'commands')
    // Health checks arriving together share one PING/INFO in flight (each still measured after it was asked).
    const shared: SharedRedis = { url, prefix, commands, probe: coalesce(() => probeRedis(commands, url)) }
    app.decorate('redis', shared)
    if (!(await readyWithin(commands, FIRST_CONNECT_MS))) {
      app.log.warn({ redis: (await shared.probe()).url }, 'Redis did not answer at start: serving degraded until it does')
    }
    app.addHook('onClose', async () => {
      if (commands.status === 'ready') await commands.quit().catch(() => commands.disconnect())
      else commands.disconnect()
    })
  },
  { name: 'ncm-redis', fastify: '5.x' },
)
