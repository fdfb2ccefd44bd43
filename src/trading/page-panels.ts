// The command center's panels as HTML fragments, one function each.
import { runHref } from './readback.js'
import { day, esc, link, more, num, params, signed, table, td, tone } from './page-format.js'
import type { createSystem } from './system.js'

export type Panels = Awaited<ReturnType<ReturnType<typeof createSystem>['panels']>>
type PanelSet = Panels['panels']

/** The paper account's KPIs, or how to open one. */
export function accountSummary(panels: PanelSet): string {
  const acct = panels.positions.account as Record<string, number | string> | null
  return acct
    ? `<dl class="kpis">
        <div><dt>Equity</dt><dd>${esc(num(acct.equity))} ${esc(acct.currency)}</dd></div>
        <div><dt>Cash</dt><dd>${esc(num(acct.cash))}</dd></div>
        <div><dt>Total P&amp;L</dt><dd class="${tone(acct.total_pnl)}">${esc(signed(acct.total_pnl))} (${esc(signed(acct.total_return_pct))} %)</dd></div>
        <div><dt>Unrealised</dt><dd class="${tone(acct.unrealized_pnl)}">${esc(signed(acct.unrealized_pnl))}</dd></div>
      </dl>`
    : '<p class="empty">No paper account yet: POST /api/v11/trading/full-cycle opens one.</p>'
}

/** Open positions with links to the whole ledger. */
export function positionsPanel(panels: PanelSet): string {
  return table(
    ['Symbol', 'Qty', 'Avg', 'Last', 'Value', 'Unrealised', 'Realised'],
    panels.positions.positions.map((p) => [
      td(esc(p.symbol)), td(esc(num(p.quantity, 0)), 'n'), td(esc(num(p.avg_price, 4)), 'n'), td(esc(num(p.last_price, 4)), 'n'),
      td(esc(num(p.market_value)), 'n'), td(esc(signed(p.unrealized_pnl)), `n ${tone(p.unrealized_pnl)}`),
      td(esc(signed(p.realized_pnl)), `n ${tone(p.realized_pnl)}`),
    ]),
    'No positions.',
  ) + more([['/api/v11/ledger/orders', 'orders'], ['/api/v11/ledger/fills', 'fills'], ['/api/v11/ledger/cycles', 'cycles'],
    ['/api/v11/ledger/positions', 'all positions'], ['/api/v11/ledger/accounts', 'accounts']])
}

/** The latest signals. */
export function signalsPanel(panels: PanelSet): string {
  return table(
    ['When', 'Symbol', 'Strategy', 'Params', 'Signal', 'Origin'],
    panels.signals.map((s) => [
      td(esc(day(s.created_at))), td(esc(`${s.symbol}@${s.timeframe}`)), td(esc(s.strategy)), td(esc(params(s.params)), 'small'),
      td(`<span class="badge ${esc(s.signal)}">${esc(s.signal)}</span>`), td(esc(s.origin), 'small'),
    ]),
    'No signals yet: POST /api/v11/trading/max-edge-signal or /full-cycle.',
  )
}

/** Recent runs with their headline figures. */
export function runsPanel(panels: PanelSet): string {
  return table(
    ['#', 'Kind', 'Symbol', 'Strategy', 'Headline', 'ms'],
    panels.runs.map((r) => [
      td(link(runHref(r.id), `#${r.id}`) + ' ' + link(`${runHref(r.id)}/report`, 'report'), 'n'), td(esc(r.kind)), td(esc(r.symbol ?? r.dataset_id)), td(esc(r.strategy ?? '—')),
      td(esc(Object.entries(r.headline).map(([k, v]) => `${k} ${num(v, Number.isInteger(v) ? 0 : 2)}`).join(' · ')), 'small'), td(esc(num(r.elapsed_ms, 0)), 'n'),
    ]),
    'No runs yet.',
  ) + more([['/api/v11/runs', 'all runs'], ['/api/v11/runs?kind=backtest', 'backtests'], ['/api/v11/runs?kind=simulate', 'simulations']])
}

/** Stored datasets. */
export function datasetsPanel(panels: PanelSet): string {
  return table(
    ['#', 'Symbol', 'TF', 'Source', 'Bars', 'From', 'To'],
    panels.datasets.map((d) => [
      td(link(`/api/v11/datasets/${d.id}`, `#${d.id}`), 'n'), td(esc(d.symbol)), td(esc(d.timeframe)), td(`<span class="badge ${esc(d.source)}">${esc(d.source)}</span>`),
      td(esc(num(d.rows, 0)), 'n'), td(esc(day(d.first_ts).slice(0, 10))), td(esc(day(d.last_ts).slice(0, 10))),
    ]),
    'No datasets.',
  ) + more([['/api/v11/datasets', 'all datasets']])
}

/** Platform status and its components. */
export function healthPanel(panels: PanelSet): string {
  return `<p class="status ${esc(panels.health.status)}">Platform ${esc(panels.health.status)} · v${esc(panels.health.version)} · up ${esc(num(panels.health.uptime_s, 0))} s</p>` +
    `<ul class="components">${panels.health.components.map((c) =>
      `<li><span class="dot ${esc(c.status)}"></span><b>${esc(c.name)}</b> ${esc(c.detail)}</li>`).join('')}</ul>`
}

/** Upstream RPC endpoints as the prober sees them. */
export function rpcPanel(panels: PanelSet): string {
  return panels.rpc.configured
    ? table(
      ['Endpoint', 'Healthy', 'p50 ms', 'p95 ms', 'Success', 'Last result / error'],
      panels.rpc.endpoints.map((e) => [
        td(esc(e.url), 'small'), td(`<span class="dot ${e.healthy ? 'ok' : 'down'}"></span>${e.healthy ? 'yes' : 'no'}`),
        td(esc(num(e.latency_ms.p50, 1)), 'n'), td(esc(num(e.latency_ms.p95, 1)), 'n'),
        td(e.success_rate === null ? '—' : `${esc(num(e.success_rate * 100, 0))} %`, 'n'),
        td(esc(e.last_error ?? (e.last_result?.kind === 'json-rpc' ? `block ${e.last_result.block_height ?? e.last_result.value}` : e.last_result ? `HTTP ${e.last_result.http_status}` : '—')), 'small'),
      ]),
      'No samples yet.',
    )
    : '<p class="empty">No RPC endpoints configured (RPC_ENDPOINTS).</p>'
}

/** What the equity chart shows (or how to get one). */
export function chartCaption(panels: PanelSet): string {
  const equity = panels.equity
  return equity
    ? `Run ${link(runHref(equity.run_id), `#${equity.run_id}`)} · ${esc(equity.strategy ?? '?')} on ${esc(equity.symbol ?? equity.dataset_id)} · return ${esc(signed(equity.return_pct))} % · ${link(`${runHref(equity.run_id)}/report`, 'report')}`
    : 'The latest backtest\'s equity curve is drawn here (every backtest keeps it).'
}
