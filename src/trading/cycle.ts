// The paper full cycle: signal → ATR risk sizing → paper order → fill at the latest close → ledger, in one transaction
// with its idempotency row. Across replicas the database decides: the key's unique constraint lets one request store
// its cycle; the other's transaction fails (or, on PostgreSQL, is retried) and then replays the stored answer.
import type { Clock } from '../sched/clock.js'
import { Refusal } from '../http/refusal.js'
import { atr, signalOf } from '../engines/trading/index.js'
import type { Bars } from '../engines/trading/types.js'
import { digestOf } from './checksum.js'
import { resolveDataset } from './datasets.js'
import { iso } from './present.js'
import type { DatasetRow, TradingRepository } from './repository.js'
import { PAPER_INITIAL_CASH, type FullCycleBody } from './schemas.js'
import type { TradingService } from './service.js'
import { recordCycle, type ChosenSignal, type CycleAnswer } from './cycle-record.js'
import { clientKeyOf, ownedKey } from './owned-keys.js'

export type { CycleAnswer } from './cycle-record.js'

export const FULL_CYCLE_ROUTE = 'POST /api/v11/trading/full-cycle'

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/

/** What a cycle needs of the research service: a dataset's bars, and a signal (given, or searched for). */
export type CycleResearch = Pick<TradingService, 'bars' | 'strategyParams' | 'researchAs'>

export interface CycleDeps {
  repo: TradingRepository
  service: CycleResearch
  clock: Clock
}

export function createCycleRunner({ repo, service, clock }: CycleDeps) {
  /**
   * Requests under way per idempotency key in this process, so a concurrent repeat waits for the first instead of
   * computing its signal too. Only a shortcut: the key's unique constraint is what keeps one order per key.
   */
  const inflight = new Map<string, { digest: string; done: Promise<unknown> }>()

  /**
   * This process's cycles of one account run their transactions one after another: they would conflict on its cash
   * anyway, and each waiting cycle would hold a pooled connection. Only a shortcut too: across replicas the database
   * serializes them (the account's transaction lock, below).
   */
  const accountLanes = new Map<string, Promise<unknown>>()
  function inAccountLane<T>(account: string, work: () => Promise<T>): Promise<T> {
    const run = (accountLanes.get(account) ?? Promise.resolve()).then(work)
    const settled = run.catch(() => undefined)
    accountLanes.set(account, settled)
    void settled.then(() => {
      if (accountLanes.get(account) === settled) accountLanes.delete(account)
    })
    return run
  }

  // Stored keys name their owner (owned-keys.ts): messages show the client's part.
  const conflict = (stored: string) => {
    const key = clientKeyOf(stored)
    return new Refusal('conflict', `Idempotency-Key "${key}" was first used with another request body; a key names one request`, {
      hints: { idempotency_key: key },
    })
  }

  function replay(row: { request_digest: string; status_code: number; response: string }, digest: string, key: string): CycleAnswer {
    if (row.request_digest !== digest) throw conflict(key)
    return { status: row.status_code, body: { ...JSON.parse(row.response) as Record<string, unknown>, replayed: true }, replayed: true }
  }

  async function execute(body: FullCycleBody, key: string | null, digest: string, owner: string): Promise<CycleAnswer> {
    const dataset = await resolveDataset(repo, body.dataset)
    const bars = await service.bars(dataset)
    const n = bars.ts.length
    if (n < body.risk.atr_period + 1) {
      throw new Refusal('invalid_input', `dataset #${dataset.id} has ${n} bars; ATR(${body.risk.atr_period}) needs ${body.risk.atr_period + 1}`)
    }
    const signal = await chooseSignal(service, body, dataset, bars, owner)
    const atrNow = atr(bars.high, bars.low, bars.close, body.risk.atr_period)[n - 1]!
    if (!(atrNow > 0)) throw new Refusal('invalid_input', `ATR(${body.risk.atr_period}) of the latest bar is ${atrNow}; cannot size against it`)
    const bar = { ts: bars.ts[n - 1]!, close: bars.close[n - 1]! }
    // Everything above is computed before the transaction opens: it holds only database work.
    try {
      return await inAccountLane(body.account, () => repo.transaction(async (tx) => {
        if (key) {
          // Another replica (or a request that raced past the in-flight map) may have finished first.
          const stored = await tx.idempotency(key)
          if (stored) return replay(stored, digest, key)
        }
        const answer = await recordCycle(tx, clock, body, dataset, bar, atrNow, signal, key)
        if (key) {
          const stored = await tx.insertIdempotency({
            key, route: FULL_CYCLE_ROUTE, request_digest: digest, status_code: answer.status,
            response: JSON.stringify(answer.body), created_at: iso(clock.now()),
          })
          if (!stored) throw new KeyTaken(key)
        }
        return answer
      }, { lock: `account:${body.account}` }))
    } catch (err) {
      // A unique constraint (the key's, or its cycle's) refused this request's rows: the request that won stored
      // its answer, which this one replays. Anything else (a refusal, no stored answer) stands.
      if (key === null || err instanceof Refusal) throw err
      const stored = await repo.idempotency(key)
      if (!stored) throw err
      return replay(stored, digest, key)
    }
  }

  return {
    /** `owner`: the principal's owner key (src/access/policy.ts): a key names one request of one principal. */
    async run(body: FullCycleBody, clientKey: string | null, owner: string): Promise<CycleAnswer> {
      if (body.mode === 'live') {
        throw new Refusal('forbidden', 'live trading is disabled: this platform is paper-only and never sends orders to a market (see /api/v11/system/mode)', {
          hints: { mode: 'paper', live_trading: false },
        })
      }
      if (clientKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(clientKey)) {
        throw new Refusal('invalid_input', 'Idempotency-Key must be 1–200 visible ASCII characters', { issues: [{ path: 'headers.idempotency-key', message: 'invalid' }] })
      }
      const key = clientKey === null ? null : ownedKey(owner, clientKey)
      const digest = digestOf(body)
      if (key === null) return execute(body, null, digest, owner)
      // Bounded: each pass either answers or waits for a request that then finished (successfully or not).
      for (let attempt = 0; attempt < 5; attempt++) {
        const stored = await repo.idempotency(key)
        if (stored) return replay(stored, digest, key)
        const pending = inflight.get(key)
        if (pending) {
          if (pending.digest !== digest) throw conflict(key)
          await pending.done.catch(() => undefined)
          continue
        }
        const done = execute(body, key, digest, owner)
        inflight.set(key, { digest, done })
        try {
          return await done
        } finally {
          inflight.delete(key)
        }
      }
      throw new Refusal('conflict', `Idempotency-Key "${key}" is busy with another request; retry`, { retryAfterS: 1 })
    },
  }
}

/** Rolls back a cycle whose idempotency key another request stored meanwhile. */
class KeyTaken extends Error {
  override name = 'KeyTaken'
  constructor(key: string) {
    super(`Idempotency-Key "${key}" was stored by another request`)
  }
}

/**
 * The signal a cycle acts on: the named strategy's on the latest bar, or the best out-of-sample configuration's (its
 * search stored as a run of `owner`'s).
 */
async function chooseSignal(service: CycleResearch, body: FullCycleBody, dataset: DatasetRow, bars: Bars, owner: string): Promise<ChosenSignal> {
  if (body.strategy) {
    const params = service.strategyParams(body.strategy, body.params ?? {})
    // A signal is one pass of indicators over the bars: light enough for the event loop.
    return { value: signalOf(bars, body.strategy, params, body.allow_short), strategy: body.strategy, params, source: 'given', run_id: null }
  }
  if (body.params) throw new Refusal('invalid_input', 'params were given without a strategy', { issues: [{ path: 'params', message: 'needs strategy' }] })
  const found = await service.researchAs(owner).maxEdgeSignal({
    dataset: dataset.id,
    ...(body.search?.strategies ? { strategies: body.search.strategies } : {}),
    ...(body.search?.in_sample ? { in_sample: body.search.in_sample } : {}),
    ...(body.search?.out_of_sample ? { out_of_sample: body.search.out_of_sample } : {}),
    cash: PAPER_INITIAL_CASH,
    commission: body.commission,
    slippage_bps: body.slippage_bps,
    allow_short: body.allow_short,
    ...(body.timeout_ms ? { timeout_ms: body.timeout_ms } : {}),
  }, { kind: 'full_cycle_search', recordSignal: false })
  if (!found.best || !found.signal) throw new Refusal('invalid_input', 'the search found no configuration with a defined out-of-sample edge; name a strategy instead')
  return { value: found.signal, strategy: found.best.strategy, params: found.best.params, source: 'search', run_id: found.run.id }
}
