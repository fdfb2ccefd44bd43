// The paper full cycle: signal → ATR risk sizing → paper order → fill at the latest close → ledger, in one transaction.
import type { Clock } from '../clock.js'
import { Refusal } from '../refusal.js'
import type { Store } from '../store/index.js'
import { atr, signalOf } from '../engines/trading/index.js'
import type { Bars, Signal, StrategyName } from '../engines/trading/types.js'
import { digestOf } from './checksum.js'
import { resolveDataset } from './datasets.js'
import { iso } from './present.js'
import type { AccountRow, DatasetRow, TradingRepository } from './repository.js'
import { PAPER_CURRENCY, PAPER_INITIAL_CASH, type FullCycleBody } from './schemas.js'
import type { TradingService } from './service.js'
import { applyFill, cashFlowOf, fillPrice, sizeOrder, type RiskSettings } from './sizing.js'

export const FULL_CYCLE_ROUTE = 'POST /api/v11/trading/full-cycle'

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/

export interface CycleAnswer {
  status: number
  body: Record<string, unknown>
  replayed: boolean
}

interface ChosenSignal {
  value: Signal
  strategy: StrategyName
  params: Record<string, number>
  source: 'given' | 'search'
  run_id: number | null
}

export interface CycleDeps {
  store: Store
  repo: TradingRepository
  service: TradingService
  clock: Clock
}

export function createCycleRunner({ store, repo, service, clock }: CycleDeps) {
  /** Requests under way per idempotency key, so a concurrent repeat waits for the first instead of racing it. */
  const inflight = new Map<string, { digest: string; done: Promise<unknown> }>()

  const conflict = (key: string) =>
    new Refusal('conflict', `Idempotency-Key "${key}" was first used with another request body; a key names one request`, {
      hints: { idempotency_key: key },
    })

  function replay(row: { request_digest: string; status_code: number; response: string }, digest: string, key: string): CycleAnswer {
    if (row.request_digest !== digest) throw conflict(key)
    return { status: row.status_code, body: { ...JSON.parse(row.response) as Record<string, unknown>, replayed: true }, replayed: true }
  }

  async function execute(body: FullCycleBody, key: string | null, digest: string): Promise<CycleAnswer> {
    const dataset = resolveDataset(repo, body.dataset)
    const bars = service.bars(dataset)
    const n = bars.ts.length
    if (n < body.risk.atr_period + 1) {
      throw new Refusal('invalid_input', `dataset #${dataset.id} has ${n} bars; ATR(${body.risk.atr_period}) needs ${body.risk.atr_period + 1}`)
    }
    const signal = await chooseSignal(body, dataset, bars)
    const atrNow = atr(bars.high, bars.low, bars.close, body.risk.atr_period)[n - 1]!
    if (!(atrNow > 0)) throw new Refusal('invalid_input', `ATR(${body.risk.atr_period}) of the latest bar is ${atrNow}; cannot size against it`)
    const bar = { ts: bars.ts[n - 1]!, close: bars.close[n - 1]! }
    return store.transaction(() => {
      if (key) {
        // Another process (or a request that raced past the in-flight map) may have finished first.
        const stored = repo.idempotency(key)
        if (stored) return replay(stored, digest, key)
      }
      const answer = recordCycle(body, dataset, bar, atrNow, signal, key)
      if (key) {
        repo.insertIdempotency({
          key, route: FULL_CYCLE_ROUTE, request_digest: digest, status_code: answer.status,
          response: JSON.stringify(answer.body), created_at: iso(clock.now()),
        })
      }
      return answer
    })
  }

  async function chooseSignal(body: FullCycleBody, dataset: DatasetRow, bars: Bars): Promise<ChosenSignal> {
    if (body.strategy) {
      const params = service.strategyParams(body.strategy, body.params ?? {})
      // A signal is one pass of indicators over the bars: light enough for the event loop.
      return { value: signalOf(bars, body.strategy, params, body.allow_short), strategy: body.strategy, params, source: 'given', run_id: null }
    }
    if (body.params) throw new Refusal('invalid_input', 'params were given without a strategy', { issues: [{ path: 'params', message: 'needs strategy' }] })
    const found = await service.maxEdgeSignal({
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

  /** Synchronous: runs inside the caller's transaction. */
  function recordCycle(
    body: FullCycleBody, dataset: DatasetRow, bar: { ts: number; close: number }, atrNow: number, signal: ChosenSignal, key: string | null,
  ): CycleAnswer {
    const now = iso(clock.now())
    const account = ensureAccount(body.account, now)
    const valuation = valueAccount(account, dataset.id, bar.close)
    const held = repo.position(account.id, dataset.id)
    const risk: RiskSettings = {
      riskFraction: body.risk.fraction,
      atrMultiple: body.risk.atr_multiple,
      maxPositionFraction: body.risk.max_position_pct / 100,
      commission: body.commission,
      slippageBps: body.slippage_bps,
      allowShort: body.allow_short,
    }
    const sizing = sizeOrder({
      signal: signal.value, currentQuantity: held?.quantity ?? 0, cash: account.cash, equity: valuation.equity, price: bar.close, atr: atrNow,
    }, risk)

    const signalId = repo.insertSignal({
      dataset_id: dataset.id, strategy: signal.strategy, params: JSON.stringify(signal.params), signal: signal.value,
      bar_ts: bar.ts, origin: 'full-cycle', run_id: signal.run_id, created_at: now,
    })
    const outcome = sizing.order_quantity === 0 ? 'no_change' : 'ordered'
    const cycleId = repo.insertCycle({ account_id: account.id, dataset_id: dataset.id, signal_id: signalId, idempotency_key: key, outcome, created_at: now })

    let order: Record<string, unknown> | null = null
    let fill: Record<string, unknown> | null = null
    let position = held
      ? { quantity: held.quantity, avgPrice: held.avg_price, realizedPnl: held.realized_pnl }
      : { quantity: 0, avgPrice: 0, realizedPnl: 0 }
    let cash = account.cash
    if (sizing.order_quantity !== 0) {
      const side = sizing.order_quantity > 0 ? 'buy' : 'sell'
      const quantity = Math.abs(sizing.order_quantity)
      const price = fillPrice(bar.close, side, body.slippage_bps)
      const commission = quantity * price * body.commission
      const orderId = repo.insertOrder({
        cycle_id: cycleId, account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, side, quantity,
        type: 'market', status: 'filled', reference_price: bar.close, created_at: now,
      })
      const fillId = repo.insertFill({
        order_id: orderId, account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, side, quantity, price,
        commission, slippage_bps: body.slippage_bps, bar_ts: bar.ts, created_at: now,
      })
      const flow = cashFlowOf(side, quantity, price, commission)
      cash += flow.trade
      repo.insertCash({ account_id: account.id, kind: 'trade', amount: flow.trade, balance_after: cash, fill_id: fillId, created_at: now })
      if (commission > 0) {
        cash += flow.commission
        repo.insertCash({ account_id: account.id, kind: 'commission', amount: flow.commission, balance_after: cash, fill_id: fillId, created_at: now })
      }
      repo.setCash(account.id, cash)
      position = applyFill(position, sizing.order_quantity, price)
      repo.upsertPosition({
        account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, quantity: position.quantity,
        avg_price: position.avgPrice, realized_pnl: position.realizedPnl, updated_at: now,
      })
      order = { id: orderId, side, quantity, type: 'market', status: 'filled', reference_price: bar.close }
      fill = { id: fillId, side, quantity, price, slippage_bps: body.slippage_bps, commission, notional: quantity * price, bar_ts: iso(bar.ts) }
    }
    const marketValue = position.quantity * bar.close
    const equityAfter = cash + valuation.otherMarketValue + marketValue
    return {
      status: 201,
      replayed: false,
      body: {
        cycle_id: cycleId,
        created_at: now,
        mode: 'paper',
        replayed: false,
        idempotency_key: key,
        outcome,
        account: {
          id: account.id, currency: account.currency, cash_before: account.cash, cash_after: cash,
          equity_before: valuation.equity, equity_after: equityAfter,
        },
        dataset: { id: dataset.id, symbol: dataset.symbol, timeframe: dataset.timeframe, source: dataset.source },
        bar: { ts: iso(bar.ts), close: bar.close },
        signal: { id: signalId, value: signal.value, strategy: signal.strategy, params: signal.params, source: signal.source, run_id: signal.run_id },
        sizing: {
          ...sizing, equity: valuation.equity, price: bar.close, atr: atrNow, atr_period: body.risk.atr_period,
          atr_multiple: body.risk.atr_multiple, risk_fraction: body.risk.fraction, max_position_pct: body.risk.max_position_pct,
        },
        order,
        fill,
        position: {
          quantity: position.quantity, avg_price: position.avgPrice, realized_pnl: position.realizedPnl,
          market_value: marketValue, unrealized_pnl: position.quantity * (bar.close - position.avgPrice),
        },
      },
    }
  }

  function ensureAccount(id: string, now: string): AccountRow {
    const existing = repo.account(id)
    if (existing) return existing
    const account: AccountRow = { id, currency: PAPER_CURRENCY, initial_cash: PAPER_INITIAL_CASH, cash: PAPER_INITIAL_CASH, created_at: now }
    repo.insertAccount(account)
    repo.insertCash({ account_id: id, kind: 'deposit', amount: PAPER_INITIAL_CASH, balance_after: PAPER_INITIAL_CASH, fill_id: null, created_at: now })
    return account
  }

  /** Cash plus every position marked to its dataset's latest close. */
  function valueAccount(account: AccountRow, datasetId: number, close: number) {
    let otherMarketValue = 0
    let thisMarketValue = 0
    for (const p of repo.positions(account.id)) {
      if (p.dataset_id === datasetId) thisMarketValue = p.quantity * close
      else otherMarketValue += p.quantity * (repo.lastBar(p.dataset_id)?.close ?? p.avg_price)
    }
    return { equity: account.cash + otherMarketValue + thisMarketValue, otherMarketValue }
  }

  return {
    async run(body: FullCycleBody, key: string | null): Promise<CycleAnswer> {
      if (body.mode === 'live') {
        throw new Refusal('forbidden', 'live trading is disabled: this platform is paper-only and never sends orders to a market (see /api/v11/system/mode)', {
          hints: { mode: 'paper', live_trading: false },
        })
      }
      if (key !== null && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
        throw new Refusal('invalid_input', 'Idempotency-Key must be 1–200 visible ASCII characters', { issues: [{ path: 'headers.idempotency-key', message: 'invalid' }] })
      }
      const digest = digestOf(body)
      if (key === null) return execute(body, null, digest)
      // Bounded: each pass either answers or waits for a request that then finished (successfully or not).
      for (let attempt = 0; attempt < 5; attempt++) {
        const stored = repo.idempotency(key)
        if (stored) return replay(stored, digest, key)
        const pending = inflight.get(key)
        if (pending) {
          if (pending.digest !== digest) throw conflict(key)
          await pending.done.catch(() => undefined)
          continue
        }
        const done = execute(body, key, digest)
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
