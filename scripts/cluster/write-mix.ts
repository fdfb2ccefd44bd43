// A seeded stream of durable writes (paper cycles under repeated Idempotency-Keys, pins, optionally dataset imports)
// against a server that may die under it, a ledger of what was acknowledged, and the checks that everything
// acknowledged is still there. Shared by the crash test (one process, SIGKILLed) and the multi-replica test (three
// processes behind nginx, one SIGKILLed).
import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { Pool } from 'undici'
import { canonicalJson } from '../../src/engines/digest/canonical-json.js'

/** mulberry32: small, seedable, good enough to pick moments and workloads. */
export function prng(seed: number) {
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
export type Rng = ReturnType<typeof prng>

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

interface DatasetWrite {
  symbol: string
  csv: string
  rows: number
}

interface DatasetAck extends DatasetWrite {
  round: number
  id: number
  /** An answer said created: true (only one ever may). */
  createdSeen: boolean
}

export class Ledger {
  /** Every key ever sent, with the one body it is always sent with. */
  readonly keyBodies = new Map<string, Record<string, unknown>>()
  readonly cycles = new Map<string, CycleAck>()
  readonly cycleOwner = new Map<number, string>()
  readonly orderOwner = new Map<number, string>()
  /** Digests of every pin sent (acknowledged or not). */
  readonly pinsSent = new Map<string, PinWrite>()
  readonly pins = new Map<string, PinAck>()
  /** Dataset imports by symbol: every one sent, and the acknowledged ones with their id. */
  readonly datasetsSent = new Map<string, DatasetWrite>()
  readonly datasets = new Map<string, DatasetAck>()
  readonly problems: string[] = []
  writes = 0
  /** Writes that failed while a server was being killed (not acknowledged, so not checked). */
  excusedFailures = 0
  /** Writes refused 503 occupied (contention: a write that lost its serializable race too often) and sent again. */
  occupiedRetries = 0
  repeatedKeyAcks = 0
  repeatedImportAcks = 0
  replaysChecked = 0
  pinsChecked = 0
  datasetsChecked = 0

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

  ackDataset(write: DatasetWrite, round: number, status: number, body: Record<string, any>) {
    const id = body.id
    if ((status !== 200 && status !== 201) || typeof id !== 'number' || body.dataset?.rows !== write.rows) {
      this.problem(`import ${write.symbol}: unexpected answer ${status} ${JSON.stringify(body).slice(0, 200)}`)
      return
    }
    const created = status === 201 && body.created === true
    const first = this.datasets.get(write.symbol)
    if (!first) {
      this.datasets.set(write.symbol, { ...write, round, id, createdSeen: created })
      return
    }
    // One dataset per content: the same bars again answer the dataset already made, wherever they land, and only
    // one import (concurrent ones included) may say it created it.
    this.repeatedImportAcks++
    if (id !== first.id) this.problem(`import ${write.symbol}: the same bars made dataset ${id} after dataset ${first.id}`)
    if (created && first.createdSeen) this.problem(`import ${write.symbol}: two answers said created (datasets ${first.id} and ${id})`)
    if (created) first.createdSeen = true
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

/** A small valid daily series (a random walk), its symbol unique to the tag. */
function randomDataset(rng: Rng, symbol: string): DatasetWrite {
  const rows = rng.int(20, 200)
  const lines = ['Date,Open,High,Low,Close,Volume']
  let price = rng.int(20, 200)
  const start = Date.UTC(2020, 0, 1)
  for (let i = 0; i < rows; i++) {
    const open = price
    const close = Math.max(1, Math.round((open + rng.int(-300, 300) / 100) * 100) / 100)
    const high = Math.max(open, close) + rng.int(0, 100) / 100
    const low = Math.max(0.5, Math.min(open, close) - rng.int(0, 100) / 100)
    lines.push(`${new Date(start + i * 86_400_000).toISOString().slice(0, 10)},${open},${high},${low},${close},${rng.int(100, 10_000)}`)
    price = close
  }
  return { symbol, csv: lines.join('\n') + '\n', rows }
}

/** Runs fn over items, at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!)
  }))
}

export interface Failure {
  /** The HTTP status, or undefined when the request failed in transport (reset, refused). */
  status?: number
  startedAt: number
  endedAt: number
}

export interface WriteStreamOptions {
  ledger: Ledger
  rng: Rng
  /** Tag of this run's keys, pins and symbols (the seed), so runs never share them. */
  tag: string
  round: number
  workers: number
  /** The stream ends once this says so. */
  stop: () => boolean
  /** Whether a write that failed is excused: it met a server being killed. Anything else is a problem. */
  excused: (failure: Failure) => boolean
  /** Headers for each request: credentials, the client's address. */
  headers?: () => Record<string, string>
  /** Share of new dataset imports in the mix (0 = none). */
  importShare?: number
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Record<string, any> }

/** How often a write refused 503 occupied is sent again before the refusal counts as a problem. */
const OCCUPIED_RETRIES = 5
const isOccupied = (res: Answer): boolean => res.status === 503 && res.body.refuse?.code === 'occupied'

/** Sends, then again after each 503 occupied's Retry-After (as a client does), at most `times` more; `onRetry` counts. */
async function whileOccupied(send: () => Promise<Answer>, times: number, onRetry: () => void = () => {}): Promise<Answer> {
  let res = await send()
  for (let tries = 1; isOccupied(res) && tries <= times; tries++) {
    onRetry()
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.body.refuse?.retry_after_s ?? 1)))
    res = await send()
  }
  return res
}

async function send(p: Pool, path: string, payload: unknown, headers: Record<string, string>, contentType = 'application/json'): Promise<Answer> {
  const res = await p.request({
    path, method: 'POST', body: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': contentType, ...headers },
  })
  const text = await res.body.text()
  let body: Record<string, any>
  try {
    body = JSON.parse(text) as Record<string, any>
  } catch {
    body = { unparsed: text.slice(0, 300) } // nginx's own error pages are HTML
  }
  return { status: res.statusCode, headers: res.headers, body }
}

/** Writes from `workers` concurrent loops until `stop()`; records what was acknowledged in the ledger. */
export async function writeStream(p: Pool, o: WriteStreamOptions) {
  const { ledger, rng, round } = o
  const headers = () => o.headers?.() ?? {}
  let n = 0
  /** Sends one write; answers the response when it is 2xx, else records a problem unless the failure is excused. */
  const attempt = async (what: string, fn: () => Promise<Answer>): Promise<Answer | null> => {
    ledger.writes++
    const startedAt = Date.now()
    let res: Answer
    try {
      // Every write here is safe to send again (a keyed cycle, a content-addressed pin, a series imported by symbol): a
      // typed refusal that says to come back is met as a client meets it, and counted. Never acknowledged, it was never lost.
      res = await whileOccupied(fn, OCCUPIED_RETRIES, () => ledger.occupiedRetries++)
    } catch (err) {
      if (o.excused({ startedAt, endedAt: Date.now() })) ledger.excusedFailures++
      else ledger.problem(`round ${round}: ${what} failed: ${(err as Error).message}`)
      return null
    }
    if (res.status >= 200 && res.status < 300) return res
    if (o.excused({ status: res.status, startedAt, endedAt: Date.now() })) ledger.excusedFailures++
    else ledger.problem(`round ${round}: ${what} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`)
    return null
  }

  const sendCycle = async (key: string) => {
    const res = await attempt(`full-cycle with key ${key}`, () =>
      send(p, '/api/v11/trading/full-cycle', ledger.keyBodies.get(key), { ...headers(), 'idempotency-key': key }))
    if (!res) return
    const header = res.headers['idempotent-replayed']
    ledger.ackCycle(key, round, res.status, Array.isArray(header) ? header[0] : header, res.body)
  }
  const sendPin = async (pin: PinWrite) => {
    ledger.pinsSent.set(pin.digest, pin)
    const res = await attempt(`pin ${pin.digest}`, () => send(p, '/api/v1/pin', pin.payload, headers()))
    if (!res) return
    const data = res.body.data as Record<string, unknown> | undefined
    if (res.body.ok !== true || !data) {
      ledger.problem(`round ${round}: pin answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`)
    } else if (data.digest !== pin.digest || data.size !== pin.bytes.byteLength) {
      ledger.problem(`round ${round}: pin answered digest ${String(data.digest)} size ${String(data.size)} for ${pin.digest} of ${pin.bytes.byteLength} bytes`)
    } else if (!ledger.pins.has(pin.digest)) {
      ledger.pins.set(pin.digest, { ...pin, round })
    }
  }
  const sendImport = async (write: DatasetWrite) => {
    ledger.datasetsSent.set(write.symbol, write)
    const res = await attempt(`import ${write.symbol}`, () =>
      send(p, `/api/v11/datasets?symbol=${encodeURIComponent(write.symbol)}&timeframe=1d`, write.csv, headers(), 'text/csv'))
    if (res) ledger.ackDataset(write, round, res.status, res.body)
  }

  const importShare = o.importShare ?? 0
  const worker = async () => {
    while (!o.stop()) {
      const r = rng.next()
      if (r < importShare) {
        // A new series, sent twice at once a third of the time (one dataset must come of it), or one sent before.
        if (ledger.datasetsSent.size > 0 && rng.next() < 0.3) {
          await sendImport(rng.pick([...ledger.datasetsSent.values()]))
        } else {
          const write = randomDataset(rng, `SC${o.tag}R${round}N${n++}`)
          if (rng.next() < 0.33) await Promise.all([sendImport(write), sendImport(write)])
          else await sendImport(write)
        }
        continue
      }
      const s = (r - importShare) / (1 - importShare) // the rest of the mix keeps its proportions
      if (s < 0.4) {
        // A new key; a quarter of them sent twice at once (the second must wait for the first and replay it).
        const key = `crash-${o.tag}-${round}-${n++}`
        ledger.keyBodies.set(key, randomCycleBody(rng))
        if (rng.next() < 0.25) await Promise.all([sendCycle(key), sendCycle(key)])
        else await sendCycle(key)
      } else if (s < 0.55 && ledger.keyBodies.size > 0) {
        // A key sent before, with its body: acknowledged (this round or before a kill) or never answered (a retry).
        const acked = [...ledger.cycles.keys()]
        const key = acked.length > 0 && rng.next() < 0.7 ? rng.pick(acked) : rng.pick([...ledger.keyBodies.keys()])
        await sendCycle(key)
      } else if (s < 0.62 && ledger.pinsSent.size > 0) {
        await sendPin(rng.pick([...ledger.pinsSent.values()])) // the same content again: the same digest, nothing new
      } else {
        await sendPin(randomPin(rng, `pin ${o.tag}/${round}/${n++}`))
      }
    }
  }
  await Promise.all(Array.from({ length: o.workers }, worker))
}

export interface CheckOptions {
  ledger: Ledger
  rng: Rng
  /** Names the moment in every problem ("after kill 3"). */
  label: string
  /** Only writes acknowledged since this round, plus a sample of older ones; 'all' checks everything. */
  rounds: { since: number; oldSample: number } | 'all'
  concurrency: number
  headers?: () => Record<string, string>
}

/**
 * Everything acknowledged is still there: /system/verify passes (ledger reconciliation included), acknowledged
 * cycles replay under their keys, pins read back byte for byte, imported datasets answer with their rows; and the
 * counts agree: one cycle per key, at most one order per cycle, no paper account below zero cash.
 */
export async function checkWrites(p: Pool, o: CheckOptions) {
  const { ledger, rng, label } = o
  const headers = () => o.headers?.() ?? {}
  const get = async (path: string) => {
    const res = await p.request({ path, method: 'GET', headers: headers() })
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> }
  }
  const verify = async () => {
    const res = await get('/api/v11/system/verify')
    if (res.status !== 200 || res.body.ok !== true) {
      const failed = ((res.body.checks ?? []) as Array<{ name: string; subject: string | null; ok: boolean; detail: string }>)
        .filter((c) => !c.ok).map((c) => `${c.name}${c.subject ? ` (${c.subject})` : ''}: ${c.detail}`)
      ledger.problem(`${label}: /system/verify answered ${res.status} ok=${String(res.body.ok)}: ${failed.join('; ')}`)
    }
  }

  const choose = <T extends { round: number }>(entries: Array<[string, T]>) => {
    const rounds = o.rounds
    if (rounds === 'all') return entries
    const fresh = entries.filter(([, v]) => v.round >= rounds.since)
    const old = entries.filter(([, v]) => v.round < rounds.since)
    for (let i = old.length - 1; i > 0; i--) {
      const j = rng.int(0, i)
      ;[old[i], old[j]] = [old[j]!, old[i]!]
    }
    return [...fresh, ...old.slice(0, rounds.oldSample)]
  }

  const replays = () => eachLimited(choose([...ledger.cycles.entries()]), o.concurrency, async ([key, ack]) => {
    ledger.replaysChecked++
    const res = await send(p, '/api/v11/trading/full-cycle', ledger.keyBodies.get(key), { ...headers(), 'idempotency-key': key })
    if (res.status < 200 || res.status > 299 || res.headers['idempotent-replayed'] !== 'true' || res.body.replayed !== true) {
      ledger.problem(`${label}: key ${key} (acknowledged in round ${ack.round} as cycle ${ack.cycleId}) is not replayed: ${res.status} replayed=${String(res.body.replayed)} cycle ${String(res.body.cycle_id)}`)
    } else if (!isDeepStrictEqual(withoutReplayed(res.body), ack.answer)) {
      ledger.problem(`${label}: key ${key} replays cycle ${String(res.body.cycle_id)} order ${JSON.stringify(res.body.order?.id ?? null)}, acknowledged as cycle ${ack.cycleId} order ${ack.orderId}`)
    }
  })

  const pinReads = () => eachLimited(choose([...ledger.pins.entries()]), o.concurrency, async ([digest, pin]) => {
    ledger.pinsChecked++
    // A read past the client's memory share is refused occupied with Retry-After: a client waits and asks again.
    const res = await whileOccupied(() => send(p, '/api/v1/pin', { digest }, headers()), 19)
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

  const datasetReads = () => eachLimited(choose([...ledger.datasets.entries()]), o.concurrency, async ([symbol, ack]) => {
    ledger.datasetsChecked++
    const res = await get(`/api/v11/datasets/${encodeURIComponent(`${symbol}@1d`)}?limit=1`)
    const dataset = res.body.dataset as { id?: number; rows?: number } | undefined
    if (res.status !== 200 || dataset?.id !== ack.id || dataset.rows !== ack.rows) {
      ledger.problem(`${label}: dataset ${symbol} (acknowledged in round ${ack.round} as #${ack.id}, ${ack.rows} rows) reads back ${res.status} ${JSON.stringify(dataset ?? res.body).slice(0, 200)}`)
    }
  })

  // Counts: every cycle here was keyed, so one key row per cycle and at most one cycle per key ever sent.
  const counts = async () => {
    const stats = await get('/api/v11/db/stats')
    const rows = new Map(((stats.body.tables ?? []) as Array<{ name: string; rows: number }>).map((t) => [t.name, t.rows]))
    const inventory = await get('/api/v11/system/inventory')
    const listed = (inventory.body.counts ?? {}) as { cycles?: number; orders?: number; fills?: number }
    const accounts = await get('/api/v11/ledger/accounts?limit=500')
    const cycles = rows.get('cycles') ?? -1
    const orders = rows.get('orders') ?? -1
    const keys = rows.get('idempotency_keys') ?? -1
    const pins = rows.get('pins') ?? -1
    const ackedOrders = ledger.orderOwner.size
    const overdrawn = ((accounts.body.accounts ?? []) as Array<{ id: string; cash: number }>).filter((a) => a.cash < 0)
    const expectations: Array<[boolean, string]> = [
      [cycles === keys, `${cycles} cycles but ${keys} idempotency keys stored (every cycle here was sent with a key)`],
      [cycles <= ledger.keyBodies.size, `${cycles} cycles from ${ledger.keyBodies.size} distinct keys: some key made more than one cycle`],
      [cycles >= ledger.cycles.size, `${cycles} cycles stored, ${ledger.cycles.size} acknowledged`],
      [orders <= cycles, `${orders} orders for ${cycles} cycles`],
      [orders >= ackedOrders, `${orders} orders stored, ${ackedOrders} acknowledged`],
      [listed.orders === orders && listed.cycles === cycles, `inventory counts ${JSON.stringify(listed)} differ from db/stats (cycles ${cycles}, orders ${orders})`],
      [listed.fills === orders, `${String(listed.fills)} fills for ${orders} orders`],
      [pins >= ledger.pins.size && pins <= ledger.pinsSent.size, `${pins} pins stored; ${ledger.pins.size} acknowledged, ${ledger.pinsSent.size} distinct sent`],
      [accounts.status === 200 && overdrawn.length === 0, `paper accounts below zero cash (a double spend): ${JSON.stringify(overdrawn)} (${accounts.status})`],
    ]
    for (const [ok, message] of expectations) if (!ok) ledger.problem(`${label}: ${message}`)
  }

  // Nothing here writes (replays answer from the key table, reads read), so the checks can run side by side.
  await Promise.all([verify(), replays(), pinReads(), datasetReads(), counts()])
}
