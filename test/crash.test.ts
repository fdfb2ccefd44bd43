// Crash safety (issue #8 item 3): the real server is SIGKILLed at 20+ random moments while paper cycles (with repeated
// Idempotency-Keys) and pins are being written, restarted on the same data directory each time, and then
// /system/verify must pass, every write acknowledged with 2xx before a kill must still be there (pins byte for byte,
// cycles replayed under their key with the same cycle and order), and no key may ever have made a second cycle.
//
// The kill moments and the workload come from seeded PRNGs: the seed is printed, and CRASH_SEED=<n> repeats the same
// kill moments (and the same workload up to the first point where concurrent requests interleave differently);
// CRASH_KILLS=<n> changes the number of kills.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { Pool } from 'undici'
import { canonicalJson } from '../src/engines/digest/canonical-json.js'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'

const KILLS = Number(process.env.CRASH_KILLS ?? 21)
const SEED = process.env.CRASH_SEED !== undefined ? Number(process.env.CRASH_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0
/** Concurrent writers while the server lives. */
const WORKERS = 8
/** Each kill lands this long (ms) after the writes start: uniform in the range. */
const KILL_AFTER_MS: [number, number] = [15, 550]
/** Acknowledged writes of earlier rounds re-checked after each restart (all of them after the last one). */
const OLD_SAMPLE = 25

/** mulberry32: small, seedable, good enough to pick moments and workloads. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  return { next, int, pick }
}
type Rng = ReturnType<typeof prng>

// Strategies that give long and flat on SYN-DAILY, so cycles on one account keep buying and selling.
const STRATEGIES = ['sma_cross', 'macd', 'donchian_breakout', 'rsi_reversion', 'bollinger_reversion', 'ema_cross'] as const
const ACCOUNTS = ['crash-a', 'crash-b', 'crash-c'] as const
const DATASETS = ['SYN-DAILY', 'SYN-DAILY', 'SYN-1H'] as const
// Multi-byte characters (é, €, 漢, an astral emoji) so a pin's bytes are not its characters.
const ALPHABET = Array.from('abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789 \n\t{}"\\é€ß漢字😀')

const sha256 = (bytes: Uint8Array) => 'sha256:' + createHash('sha256').update(bytes).digest('hex')
const withoutReplayed = (body: Record<string, unknown>) => {
  const { replayed: _replayed, ...rest } = body
  return rest
}

interface CycleAck {
  round: number
  /** The first acknowledged answer, without its `replayed` flag. */
  answer: Record<string, unknown>
  cycleId: number
  orderId: number | null
  /** Whether the original (not replayed) answer has reached us; of two concurrent sends the replay may arrive first. */
  originalSeen: boolean
}

interface PinWrite {
  payload: { content: string } | { json: unknown }
  bytes: Buffer
  digest: string
}

interface PinAck extends PinWrite {
  round: number
}

class Ledger {
  /** Every key ever sent, with the one body it is always sent with. */
  readonly keyBodies = new Map<string, Record<string, unknown>>()
  readonly cycles = new Map<string, CycleAck>()
  readonly cycleOwner = new Map<number, string>()
  readonly orderOwner = new Map<number, string>()
  /** Digests of every pin sent (acknowledged or not). */
  readonly pinsSent = new Map<string, PinWrite>()
  readonly pins = new Map<string, PinAck>()
  readonly problems: string[] = []
  writes = 0
  repeatedKeyAcks = 0
  replaysChecked = 0
  pinsChecked = 0

  problem(message: string) {
    if (this.problems.length < 50) this.problems.push(message)
  }

  ackCycle(key: string, round: number, status: number, replayedHeader: string | undefined, body: Record<string, unknown>) {
    const answer = withoutReplayed(body)
    const headerSays = replayedHeader === 'true'
    if (headerSays !== (body.replayed === true)) this.problem(`key ${key}: header idempotent-replayed=${replayedHeader} but body.replayed=${String(body.replayed)}`)
    const first = this.cycles.get(key)
    if (first) {
      this.repeatedKeyAcks++
      const original = body.replayed !== true
      if (original && first.originalSeen) this.problem(`key ${key} (first acknowledged in round ${first.round}) ran again in round ${round}: cycle ${String(body.cycle_id)} after an original answer of cycle ${first.cycleId}`)
      else if (!isDeepStrictEqual(answer, first.answer)) this.problem(`key ${key}: the ${original ? 'original' : 'replayed'} answer in round ${round} differs from the first acknowledged (cycle ${first.cycleId} → ${String(body.cycle_id)})`)
      if (original) first.originalSeen = true
      return
    }
    if (typeof body.cycle_id !== 'number' || status < 200 || status > 299) {
      this.problem(`key ${key}: unexpected answer ${status} ${JSON.stringify(body).slice(0, 200)}`)
      return
    }
    const order = body.order as { id?: unknown } | null
    const orderId = order && typeof order.id === 'number' ? order.id : null
    const ack: CycleAck = { round, answer, cycleId: body.cycle_id, orderId, originalSeen: body.replayed !== true }
    this.cycles.set(key, ack)
    const owner = this.cycleOwner.get(ack.cycleId)
    if (owner !== undefined) this.problem(`cycle ${ack.cycleId} was acknowledged for key ${owner} and again for key ${key}`)
    this.cycleOwner.set(ack.cycleId, key)
    if (orderId !== null) {
      const orderOwner = this.orderOwner.get(orderId)
      if (orderOwner !== undefined) this.problem(`order ${orderId} was acknowledged for key ${orderOwner} and again for key ${key}`)
      this.orderOwner.set(orderId, key)
    }
  }
}

function randomText(rng: Rng, tag: string): string {
  const r = rng.next()
  const length = r < 0.7 ? rng.int(0, 200) : r < 0.96 ? rng.int(200, 8000) : rng.int(8000, 120_000)
  const chars: string[] = [tag, '\n']
  for (let i = 0; i < length; i++) chars.push(rng.pick(ALPHABET))
  return chars.join('')
}

function randomPin(rng: Rng, tag: string): PinWrite {
  let payload: PinWrite['payload']
  let text: string
  if (rng.next() < 0.2) {
    const json = { tag, n: rng.int(-1e6, 1e6), x: rng.int(0, 1e6) / 64, ok: rng.next() < 0.5, items: [randomText(rng, 'item'), null, { z: 1, a: [rng.int(0, 9)] }] }
    payload = { json }
    text = canonicalJson(json)
  } else {
    text = randomText(rng, tag)
    payload = { content: text }
  }
  const bytes = Buffer.from(text, 'utf8')
  return { payload, bytes, digest: sha256(bytes) }
}

function randomCycleBody(rng: Rng): Record<string, unknown> {
  const body: Record<string, unknown> = { dataset: rng.pick(DATASETS), strategy: rng.pick(STRATEGIES), account: rng.pick(ACCOUNTS) }
  if (rng.next() < 0.3) body.risk = { fraction: rng.pick([0.005, 0.02, 0.05]) }
  return body
}

/** Runs fn over items, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!)
  }))
}

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

    const post = async (p: Pool, path: string, payload: unknown, headers: Record<string, string> = {}) => {
      const res = await p.request({
        path, method: 'POST', body: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers },
      })
      const text = await res.body.text()
      return { status: res.statusCode, headers: res.headers, body: JSON.parse(text) as Record<string, any> }
    }
    const get = async (p: Pool, path: string) => {
      const res = await p.request({ path, method: 'GET' })
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> }
    }

    /** Writes from WORKERS concurrent loops until `killed()`; records what was acknowledged. */
    async function writeStream(p: Pool, round: number, killed: () => boolean) {
      let n = 0
      const sendCycle = async (key: string) => {
        const body = ledger.keyBodies.get(key)!
        ledger.writes++
        try {
          const res = await post(p, '/api/v11/trading/full-cycle', body, { 'idempotency-key': key })
          if (res.status >= 200 && res.status < 300) {
            const header = res.headers['idempotent-replayed']
            ledger.ackCycle(key, round, res.status, Array.isArray(header) ? header[0] : header, res.body)
          } else {
            ledger.problem(`round ${round}: full-cycle with key ${key} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`)
          }
        } catch (err) {
          if (!killed()) ledger.problem(`round ${round}: full-cycle with key ${key} failed before the kill: ${(err as Error).message}`)
        }
      }
      const sendPin = async (pin: PinWrite) => {
        ledger.pinsSent.set(pin.digest, pin)
        ledger.writes++
        try {
          const res = await post(p, '/api/v1/pin', pin.payload)
          const data = res.body.data as Record<string, unknown> | undefined
          if (res.status === 200 && res.body.ok === true && data) {
            if (data.digest !== pin.digest || data.size !== pin.bytes.byteLength) {
              ledger.problem(`round ${round}: pin answered digest ${String(data.digest)} size ${String(data.size)} for ${pin.digest} of ${pin.bytes.byteLength} bytes`)
            } else if (!ledger.pins.has(pin.digest)) {
              ledger.pins.set(pin.digest, { ...pin, round })
            }
          } else {
            ledger.problem(`round ${round}: pin answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`)
          }
        } catch (err) {
          if (!killed()) ledger.problem(`round ${round}: pin ${pin.digest} failed before the kill: ${(err as Error).message}`)
        }
      }

      const worker = async () => {
        while (!killed()) {
          const r = rng.next()
          if (r < 0.4) {
            // A new key; a quarter of them sent twice at once (the second must wait for the first and replay it).
            const key = `crash-${SEED}-${round}-${n++}`
            ledger.keyBodies.set(key, randomCycleBody(rng))
            if (rng.next() < 0.25) await Promise.all([sendCycle(key), sendCycle(key)])
            else await sendCycle(key)
          } else if (r < 0.55 && ledger.keyBodies.size > 0) {
            // A key sent before, with its body: acknowledged (this round or before a kill) or never answered (a retry).
            const acked = [...ledger.cycles.keys()]
            const key = acked.length > 0 && rng.next() < 0.7 ? rng.pick(acked) : rng.pick([...ledger.keyBodies.keys()])
            await sendCycle(key)
          } else if (r < 0.62 && ledger.pinsSent.size > 0) {
            await sendPin(rng.pick([...ledger.pinsSent.values()])) // the same content again: the same digest, nothing new
          } else {
            await sendPin(randomPin(rng, `pin ${SEED}/${round}/${n++}`))
          }
        }
      }
      await Promise.all(Array.from({ length: WORKERS }, worker))
    }

    /** After a restart: verify, acknowledged cycles replayed under their keys, acknowledged pins read back, counts. */
    async function check(p: Pool, label: string, rounds: { since: number } | 'all') {
      const verify = async () => {
        const res = await get(p, '/api/v11/system/verify')
        if (res.status !== 200 || res.body.ok !== true) {
          const failed = ((res.body.checks ?? []) as Array<{ name: string; subject: string | null; ok: boolean; detail: string }>)
            .filter((c) => !c.ok).map((c) => `${c.name}${c.subject ? ` (${c.subject})` : ''}: ${c.detail}`)
          ledger.problem(`${label}: /system/verify answered ${res.status} ok=${String(res.body.ok)}: ${failed.join('; ')}`)
        }
      }

      const choose = <T extends { round: number }>(entries: Array<[string, T]>) => {
        if (rounds === 'all') return entries
        const fresh = entries.filter(([, v]) => v.round >= rounds.since)
        const old = entries.filter(([, v]) => v.round < rounds.since)
        for (let i = old.length - 1; i > 0; i--) {
          const j = rng.int(0, i)
          ;[old[i], old[j]] = [old[j]!, old[i]!]
        }
        return [...fresh, ...old.slice(0, OLD_SAMPLE)]
      }

      const replays = () => eachLimited(choose([...ledger.cycles.entries()]), WORKERS / 2, async ([key, ack]) => {
        ledger.replaysChecked++
        const res = await post(p, '/api/v11/trading/full-cycle', ledger.keyBodies.get(key), { 'idempotency-key': key })
        if (res.status < 200 || res.status > 299 || res.headers['idempotent-replayed'] !== 'true' || res.body.replayed !== true) {
          ledger.problem(`${label}: key ${key} (acknowledged in round ${ack.round} as cycle ${ack.cycleId}) is not replayed: ${res.status} replayed=${String(res.body.replayed)} cycle ${String(res.body.cycle_id)}`)
        } else if (!isDeepStrictEqual(withoutReplayed(res.body), ack.answer)) {
          ledger.problem(`${label}: key ${key} replays cycle ${String(res.body.cycle_id)} order ${JSON.stringify(res.body.order?.id ?? null)}, acknowledged as cycle ${ack.cycleId} order ${ack.orderId}`)
        }
      })

      const pinReads = () => eachLimited(choose([...ledger.pins.entries()]), WORKERS / 2, async ([digest, pin]) => {
        ledger.pinsChecked++
        const res = await post(p, '/api/v1/pin', { digest })
        const data = res.body.data as { action?: string; verified?: boolean; content?: string; size?: number } | undefined
        if (res.status !== 200 || !data || data.action !== 'read' || data.verified !== true || typeof data.content !== 'string') {
          ledger.problem(`${label}: pin ${digest} (acknowledged in round ${pin.round}) cannot be read: ${res.status} ${JSON.stringify(res.body.refuse ?? res.body).slice(0, 300)}`)
          return
        }
        const bytes = Buffer.from(data.content, 'utf8')
        if (sha256(bytes) !== digest) ledger.problem(`${label}: pin ${digest} reads back bytes that hash to ${sha256(bytes)}`)
        if (!bytes.equals(pin.bytes)) ledger.problem(`${label}: pin ${digest} reads back ${bytes.byteLength} bytes that differ from the ${pin.bytes.byteLength} sent`)
        if (data.size !== pin.bytes.byteLength) ledger.problem(`${label}: pin ${digest} records size ${String(data.size)}, ${pin.bytes.byteLength} sent`)
      })

      // Counts: every cycle here was keyed, so one key row per cycle and at most one cycle per key ever sent.
      const counts = async () => {
        const stats = await get(p, '/api/v11/db/stats')
        const rows = new Map(((stats.body.tables ?? []) as Array<{ name: string; rows: number }>).map((t) => [t.name, t.rows]))
        const inventory = await get(p, '/api/v11/system/inventory')
        const listed = (inventory.body.counts ?? {}) as { cycles?: number; orders?: number; fills?: number }
        const cycles = rows.get('cycles') ?? -1
        const orders = rows.get('orders') ?? -1
        const keys = rows.get('idempotency_keys') ?? -1
        const pins = rows.get('pins') ?? -1
        const ackedOrders = ledger.orderOwner.size
        const expectations: Array<[boolean, string]> = [
          [cycles === keys, `${cycles} cycles but ${keys} idempotency keys stored (every cycle here was sent with a key)`],
          [cycles <= ledger.keyBodies.size, `${cycles} cycles from ${ledger.keyBodies.size} distinct keys: some key made more than one cycle`],
          [cycles >= ledger.cycles.size, `${cycles} cycles stored, ${ledger.cycles.size} acknowledged`],
          [orders <= cycles, `${orders} orders for ${cycles} cycles`],
          [orders >= ackedOrders, `${orders} orders stored, ${ackedOrders} acknowledged`],
          [listed.orders === orders && listed.cycles === cycles, `inventory counts ${JSON.stringify(listed)} differ from db/stats (cycles ${cycles}, orders ${orders})`],
          [listed.fills === orders, `${String(listed.fills)} fills for ${orders} orders`],
          [pins >= ledger.pins.size && pins <= ledger.pinsSent.size, `${pins} pins stored; ${ledger.pins.size} acknowledged, ${ledger.pinsSent.size} distinct sent`],
        ]
        for (const [ok, message] of expectations) if (!ok) ledger.problem(`${label}: ${message}`)
      }

      // Nothing here writes (replays answer from the key table), so the checks can run side by side.
      await Promise.all([verify(), replays(), pinReads(), counts()])
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
          await writeStream(current.pool, round, () => killed)
          clearTimeout(timer)
          return current.server.exited
        })
        if (exit.signal !== 'SIGKILL') ledger.problem(`round ${round}: the server exited by itself (code ${exit.code}, signal ${exit.signal}): ${current.server.stderr()}`)
        await current.pool.destroy()

        current = await timed('boot', boot) // on the same data directory, after the crash
        await timed('check', () => check(current.pool, `after kill ${round + 1} (at ${killAfter} ms)`, round + 1 === KILLS ? 'all' : { since: round }))
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
