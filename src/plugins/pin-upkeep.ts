// Sweeps pin parts a crash left without their row (access/pin-orphans.ts): a bounded slice of part keys every minute,
// as the job purge sweeps job parts.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Clock } from '../sched/clock.js'
import { pinRepository } from '../access/pins.js'

export const PIN_SWEEP_EVERY_MS = 60_000

export default fp(
  async function pinUpkeepPlugin(app: FastifyInstance, opts: { clock: Clock; everyMs?: number }) {
    const pins = pinRepository(app.store.sql)
    let timer: NodeJS.Timeout | undefined
    let sweeping: Promise<unknown> = Promise.resolve()
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        sweeping = pins.sweepOrphans(opts.clock.now()).catch((err: unknown) => app.log.warn({ err }, 'pin orphan sweep failed'))
      }, opts.everyMs ?? PIN_SWEEP_EVERY_MS)
      timer.unref()
    })
    // Before the store closes: a sweep under way finishes its statement and stops.
    app.addHook('preClose', async () => {
      clearInterval(timer)
      await sweeping
    })
  },
  { name: 'ncm-pin-upkeep', fastify: '5.x', dependencies: ['ncm-store'] },
)
