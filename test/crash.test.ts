// Crash safety (issue #8 item 3): the real server is SIGKILLed at 20+ random moments while paper cycles (with repeated
// Idempotency-Keys) and pins are being written, restarted on the same data directory each time, and then
// /system/verify must pass, every write acknowledged with 2xx before a kill must still be there (pins byte for byte,
// cycles replayed under their key with the same cycle and order), and no key may ever have made a second cycle.
//
// The kill moments and the workload come from seeded PRNGs: the seed is printed, and CRASH_SEED=<n> repeats the same
// kill moments (and the same workload up to the first point where concurrent requests interleave differently);
// CRASH_KILLS=<n> changes the number of kills.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Pool } from 'undici'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'
import { checkWrites, Ledger, prng, writeStream } from '../scripts/cluster/write-mix.js'

const KILLS = Number(process.env.CRASH_KILLS ?? 21)
const SEED = process.env.CRASH_SEED !== undefined ? Number(process.env.CRASH_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0
/** Concurrent writers while the server lives. */
const WORKERS = 8
/** Each kill lands this long (ms) after the writes start: uniform in the range. */
const KILL_AFTER_MS: [number, number] = [15, 550]
/** Acknowledged writes of earlier rounds re-checked after each restart (all of them after the last one). */
const OLD_SAMPLE = 25

describe('crash safety of the real server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ncm-crash-'))
  let server: ServerProcess | null = null
  let pool: Pool | null = null

  afterAll(async () => {
    await pool?.destroy().catch(() => undefined)
    if (server) await stopServer(server)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it(`keeps every acknowledged write across ${KILLS} SIGKILLs at random moments (seed printed)`, async () => {
    requireCompiledServer()
    console.log(`crash test: seed ${SEED} (repeat with CRASH_SEED=${SEED}), ${KILLS} kills`)
    const started = Date.now()
    const moments = prng(SEED) // kill moments only, so they do not depend on how many requests a round managed
    const rng = prng(SEED ^ 0x9e3779b9) // the workload
    const ledger = new Ledger()
    const spent = { boot: 0, write: 0, check: 0 }
    const timed = async <T>(phase: keyof typeof spent, fn: () => Promise<T>): Promise<T> => {
      const t0 = performance.now()
      try {
        return await fn()
      } finally {
        spent[phase] += performance.now() - t0
      }
    }
    const context = () => `crash test seed ${SEED} (CRASH_SEED=${SEED} repeats it)`

    const boot = async () => {
      const port = await freePort()
      const proc = startServer({
        DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MILL_THREADS: '1', RATE_LIMIT_PER_MIN: '0',
        // The test machine is loaded: event-loop delay must not turn writes away.
        MAX_EVENT_LOOP_DELAY_MS: '60000',
      }, { compiled: true })
      server = proc
      await waitForHealth(`http://127.0.0.1:${port}/api/v1/health`, { server: proc })
      const connections = new Pool(`http://127.0.0.1:${port}`, { connections: WORKERS * 2, headersTimeout: 30_000, bodyTimeout: 30_000 })
      pool = connections
      return { server: proc, pool: connections }
    }

    try {
      let current = await timed('boot', boot)
      for (let round = 0; round < KILLS; round++) {
        const killAfter = moments.int(KILL_AFTER_MS[0], KILL_AFTER_MS[1])
        let killed = false
        const timer = setTimeout(() => {
          killed = true
          current.server.child.kill('SIGKILL')
        }, killAfter)
        const exit = await timed('write', async () => {
          await writeStream(current.pool, {
            ledger, rng, tag: String(SEED), round, workers: WORKERS, stop: () => killed,
            // A request the kill cut off is not acknowledged; any other failure, and any non-2xx answer, is a problem.
            excused: ({ status }) => status === undefined && killed,
          })
          clearTimeout(timer)
          return current.server.exited
        })
        if (exit.signal !== 'SIGKILL') ledger.problem(`round ${round}: the server exited by itself (code ${exit.code}, signal ${exit.signal}): ${current.server.stderr()}`)
        await current.pool.destroy()

        current = await timed('boot', boot) // on the same data directory, after the crash
        await timed('check', () => checkWrites(current.pool, {
          ledger, rng, label: `after kill ${round + 1} (at ${killAfter} ms)`, concurrency: WORKERS / 2,
          rounds: round + 1 === KILLS ? 'all' : { since: round, oldSample: OLD_SAMPLE },
        }))
        expect(ledger.problems, context()).toEqual([])
      }
      // Last: a clean shutdown still works on the data that survived all the kills.
      current.server.child.kill('SIGTERM')
      expect((await current.server.exited).code, context()).toBe(0)
    } catch (err) {
      // Start-up failures and transport errors of the checks carry the seed too.
      if (err instanceof Error && !err.message.includes(`seed ${SEED}`)) err.message = `${context()}: ${err.message}`
      throw err
    } finally {
      await pool?.destroy().catch(() => undefined)
      pool = null
      if (server) await stopServer(server)
    }

    const s = (ms: number) => (ms / 1000).toFixed(1)
    const seconds = `${s(Date.now() - started)} (starts ${s(spent.boot)}, writes ${s(spent.write)}, checks ${s(spent.check)})`
    const acknowledgedOrders = ledger.orderOwner.size
    console.log(
      `crash test: seed ${SEED}: ${KILLS} kills in ${seconds} s; ${ledger.writes} writes sent, ${ledger.cycles.size} cycles (${acknowledgedOrders} orders) ` +
        `and ${ledger.pins.size} pins acknowledged, ${ledger.repeatedKeyAcks} repeated-key answers; checked ${ledger.replaysChecked} key replays and ` +
        `${ledger.pinsChecked} pin reads after restarts`,
    )
    expect(ledger.cycles.size, context()).toBeGreaterThan(0)
    expect(ledger.pins.size, context()).toBeGreaterThan(0)
    expect(ledger.repeatedKeyAcks, context()).toBeGreaterThan(0)
  }, 180_000)
})
