// The command center's panels as data: the paper account and its positions, signals, runs, datasets, health, RPC, equity.
import type { Clock } from '../sched/clock.js'
import { iso } from './present.js'
import type { RunRow, TradingRepository } from './repository.js'
import type { RpcProber } from './rpc-prober.js'

/** `runsOf`: whose runs the runs panel and the equity card show (Principal.owner), or null for every run. */
export async function panelsOf<Health>(repo: TradingRepository, clock: Clock, prober: RpcProber, health: () => Promise<Health>, runsOf: string | null) {
  const datasets = await repo.datasets()
  const byId = new Map(datasets.map((d) => [d.id, d]))
  const positionsPanel = await positionsPanelOf(repo)
  const recent = await repo.recentSignals(10)
  // A signal names the run that found it only to a viewer who may read that run.
  const readable = runsOf === null ? null : await repo.ownedRunIds(recent.flatMap((s) => (s.run_id === null ? [] : [Number(s.run_id)])), runsOf)
  const signals = recent.map((s) => ({
    id: s.id, dataset_id: s.dataset_id, symbol: s.symbol, timeframe: s.timeframe, strategy: s.strategy,
    params: JSON.parse(s.params) as Record<string, unknown>, signal: s.signal, bar_ts: iso(s.bar_ts),
    origin: s.origin, run_id: s.run_id === null || (readable && !readable.has(Number(s.run_id))) ? null : s.run_id, created_at: s.created_at,
  }))
  const runs = (await repo.recentRuns(10, runsOf)).map((r) => ({
    id: r.id, kind: r.kind, dataset_id: r.dataset_id, symbol: byId.get(r.dataset_id)?.symbol ?? null,
    strategy: r.strategy, params: JSON.parse(r.params) as Record<string, unknown>,
    headline: headlineOf(r.kind, JSON.parse(r.stats) as Record<string, unknown>),
    inputs_digest: r.inputs_digest, elapsed_ms: r.elapsed_ms, created_at: r.created_at,
  }))
  const latest = await repo.latestBacktest(runsOf)
  return {
    generated_at: iso(clock.now()),
    mode: { mode: 'paper' as const, live_trading: false as const },
    panels: {
      positions: positionsPanel,
      signals,
      runs,
      datasets: datasets.map((d) => ({
        id: d.id, symbol: d.symbol, timeframe: d.timeframe, source: d.source, rows: d.rows,
        first_ts: d.first_ts === null ? null : iso(d.first_ts), last_ts: d.last_ts === null ? null : iso(d.last_ts),
      })),
      health: await health(),
      rpc: prober.snapshot(),
      equity: latest ? equityOf(latest, byId.get(latest.dataset_id)?.symbol ?? null) : null,
    },
  }
}

/** The paper account (or the first one) valued at each position's latest close. */
async function positionsPanelOf(repo: TradingRepository) {
  const account = (await repo.account('paper')) ?? (await repo.accounts())[0] ?? null
  let positionsPanel: {
    account: Record<string, unknown> | null
    positions: Array<Record<string, unknown>>
  } = { account: null, positions: [] }
  if (account) {
    let marketValue = 0
    let realized = 0
    let unrealized = 0
    const positions = []
    for (const p of await repo.positions(account.id)) {
      const last = await repo.lastBar(p.dataset_id)
      const value = last ? p.quantity * last.close : null
      const upnl = last ? p.quantity * (last.close - p.avg_price) : null
      marketValue += value ?? 0
      realized += p.realized_pnl
      unrealized += upnl ?? 0
      positions.push({
        dataset_id: p.dataset_id, symbol: p.symbol, quantity: p.quantity, avg_price: p.avg_price,
        last_price: last?.close ?? null, last_bar_ts: last ? iso(Number(last.ts)) : null, market_value: value,
        unrealized_pnl: upnl, realized_pnl: p.realized_pnl, updated_at: p.updated_at,
      })
    }
    const equity = account.cash + marketValue
    positionsPanel = {
      account: {
        id: account.id, currency: account.currency, initial_cash: account.initial_cash, cash: account.cash,
        market_value: marketValue, equity, realized_pnl: realized, unrealized_pnl: unrealized,
        total_pnl: equity - account.initial_cash, total_return_pct: (equity / account.initial_cash - 1) * 100,
      },
      positions,
    }
  }
  return positionsPanel
}

export function headlineOf(kind: string, stats: Record<string, unknown>): Record<string, number | null> {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
  if (kind === 'backtest') {
    return { return_pct: num(stats.return_pct), sharpe_ratio: num(stats.sharpe_ratio), max_drawdown_pct: num(stats.max_drawdown_pct), trades: num(stats.trades) }
  }
  if (kind === 'simulate') {
    return { return_p50_pct: num(stats.return_p50_pct), probability_of_loss: num(stats.probability_of_loss), var95_pct: num(stats.var95_pct) }
  }
  const best = (stats.best ?? null) as { oos_sharpe?: unknown; oos_return_pct?: unknown } | null
  const dsr = (stats.deflated_sharpe ?? null) as { dsr?: unknown } | null
  return {
    oos_sharpe: num(best?.oos_sharpe), oos_return_pct: num(best?.oos_return_pct),
    configs_tried: num(stats.configs_tried ?? stats.tried), deflated_sharpe: num(dsr?.dsr),
  }
}

function equityOf(run: RunRow, symbol: string | null) {
  const stats = JSON.parse(run.stats) as { return_pct?: unknown }
  return {
    run_id: run.id,
    dataset_id: run.dataset_id,
    symbol,
    strategy: run.strategy,
    return_pct: typeof stats.return_pct === 'number' ? stats.return_pct : null,
    points: JSON.parse(run.equity!) as Array<[number, number]>,
  }
}
