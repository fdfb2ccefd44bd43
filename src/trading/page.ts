// The command center page: server-rendered HTML of the panels with an SVG equity chart; no CDN, no build step.
import { runHref } from './readback.js'
import type { createSystem } from './system.js'

type Panels = ReturnType<ReturnType<typeof createSystem>['panels']>

const esc = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

function num(value: unknown, digits = 2): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

const signed = (value: unknown, digits = 2): string =>
  typeof value === 'number' && Number.isFinite(value) ? `${value > 0 ? '+' : ''}${num(value, digits)}` : '—'

const tone = (value: unknown): string =>
  typeof value === 'number' && Number.isFinite(value) && value !== 0 ? (value > 0 ? 'up' : 'down') : ''

const day = (isoText: unknown): string => (typeof isoText === 'string' ? isoText.slice(0, 16).replace('T', ' ') : '—')

const params = (p: Record<string, unknown>): string =>
  Object.entries(p).map(([k, v]) => `${k}=${v}`).join(', ') || '—'

function table(headers: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`
  return `<table><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${
    rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`
}

const td = (text: string, cls = ''): string => `<td${cls ? ` class="${cls}"` : ''}>${text}</td>`

const link = (href: string, text: string): string => `<a href="${esc(href)}">${esc(text)}</a>`

/** A panel's footer: where the whole list is read back (JSON, paged). */
const more = (links: Array<[string, string]>): string =>
  `<p class="more">${links.map(([href, text]) => link(href, text)).join(' · ')}</p>`

/** The equity curve as an SVG polyline over a light grid; the points are already downsampled when stored. */
export function equityChartSvg(equity: Panels['panels']['equity']): string {
  const width = 880
  const height = 280
  const pad = { left: 72, right: 16, top: 16, bottom: 32 }
  const open = `<svg id="equity-chart" viewBox="0 0 ${width} ${height}" role="img" preserveAspectRatio="xMidYMid meet"`
  if (!equity || equity.points.length < 2) {
    return `${open} aria-label="no equity curve stored yet"><title>No equity curve stored yet</title>` +
      `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="chart-empty">No equity curve stored yet: POST /api/v11/trading/backtest with include: ["equity"]</text></svg>`
  }
  const pts = equity.points
  const t0 = pts[0]![0]
  const t1 = pts[pts.length - 1]![0]
  let lo = Infinity
  let hi = -Infinity
  for (const [, v] of pts) {
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  if (hi === lo) {
    hi += 1
    lo -= 1
  }
  const x = (t: number) => pad.left + ((t - t0) / Math.max(1, t1 - t0)) * (width - pad.left - pad.right)
  const y = (v: number) => pad.top + (1 - (v - lo) / (hi - lo)) * (height - pad.top - pad.bottom)
  const line = pts.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  const baseY = (height - pad.bottom).toFixed(1)
  const area = `${x(t0).toFixed(1)},${baseY} ${line} ${x(t1).toFixed(1)},${baseY}`
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => lo + f * (hi - lo))
  const grid = ticks.map((v) =>
    `<line class="grid" x1="${pad.left}" x2="${width - pad.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>` +
    `<text class="axis" x="${pad.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(num(v, 0))}</text>`).join('')
  const start = pts[0]![1]
  const startLine = start >= lo && start <= hi
    ? `<line class="start" x1="${pad.left}" x2="${width - pad.right}" y1="${y(start).toFixed(1)}" y2="${y(start).toFixed(1)}"/>`
    : ''
  const label = `Equity of backtest run ${equity.run_id} (${equity.strategy ?? '?'} on ${equity.symbol ?? '?'}): ${num(start)} to ${num(pts[pts.length - 1]![1])}`
  return `${open} aria-label="${esc(label)}" data-run-id="${equity.run_id}" data-points="${pts.length}"><title>${esc(label)}</title>` +
    `${grid}${startLine}<polygon class="area" points="${area}"/><polyline class="line" points="${line}"/>` +
    `<text class="axis" x="${pad.left}" y="${height - 10}">${esc(day(new Date(t0).toISOString()).slice(0, 10))}</text>` +
    `<text class="axis" x="${width - pad.right}" y="${height - 10}" text-anchor="end">${esc(day(new Date(t1).toISOString()).slice(0, 10))}</text>` +
    `</svg>`
}

export function renderCommandCenter(data: Panels): string {
  const { panels } = data
  const acct = panels.positions.account as Record<string, number | string> | null
  const equity = panels.equity
  const summary = acct
    ? `<dl class="kpis">
        <div><dt>Equity</dt><dd>${esc(num(acct.equity))} ${esc(acct.currency)}</dd></div>
        <div><dt>Cash</dt><dd>${esc(num(acct.cash))}</dd></div>
        <div><dt>Total P&amp;L</dt><dd class="${tone(acct.total_pnl)}">${esc(signed(acct.total_pnl))} (${esc(signed(acct.total_return_pct))} %)</dd></div>
        <div><dt>Unrealised</dt><dd class="${tone(acct.unrealized_pnl)}">${esc(signed(acct.unrealized_pnl))}</dd></div>
      </dl>`
    : '<p class="empty">No paper account yet: POST /api/v11/trading/full-cycle opens one.</p>'
  const positions = table(
    ['Symbol', 'Qty', 'Avg', 'Last', 'Value', 'Unrealised', 'Realised'],
    panels.positions.positions.map((p) => [
      td(esc(p.symbol)), td(esc(num(p.quantity, 0)), 'n'), td(esc(num(p.avg_price, 4)), 'n'), td(esc(num(p.last_price, 4)), 'n'),
      td(esc(num(p.market_value)), 'n'), td(esc(signed(p.unrealized_pnl)), `n ${tone(p.unrealized_pnl)}`),
      td(esc(signed(p.realized_pnl)), `n ${tone(p.realized_pnl)}`),
    ]),
    'No positions.',
  ) + more([['/api/v11/ledger/orders', 'orders'], ['/api/v11/ledger/fills', 'fills'], ['/api/v11/ledger/cycles', 'cycles'],
    ['/api/v11/ledger/positions', 'all positions'], ['/api/v11/ledger/accounts', 'accounts']])
  const signals = table(
    ['When', 'Symbol', 'Strategy', 'Params', 'Signal', 'Origin'],
    panels.signals.map((s) => [
      td(esc(day(s.created_at))), td(esc(`${s.symbol}@${s.timeframe}`)), td(esc(s.strategy)), td(esc(params(s.params)), 'small'),
      td(`<span class="badge ${esc(s.signal)}">${esc(s.signal)}</span>`), td(esc(s.origin), 'small'),
    ]),
    'No signals yet: POST /api/v11/trading/max-edge-signal or /full-cycle.',
  )
  const runs = table(
    ['#', 'Kind', 'Symbol', 'Strategy', 'Headline', 'ms'],
    panels.runs.map((r) => [
      td(link(runHref(r.id), `#${r.id}`), 'n'), td(esc(r.kind)), td(esc(r.symbol ?? r.dataset_id)), td(esc(r.strategy ?? '—')),
      td(esc(Object.entries(r.headline).map(([k, v]) => `${k} ${num(v, Number.isInteger(v) ? 0 : 2)}`).join(' · ')), 'small'), td(esc(num(r.elapsed_ms, 0)), 'n'),
    ]),
    'No runs yet.',
  ) + more([['/api/v11/runs', 'all runs'], ['/api/v11/runs?kind=backtest', 'backtests'], ['/api/v11/runs?kind=simulate', 'simulations']])
  const datasets = table(
    ['#', 'Symbol', 'TF', 'Source', 'Bars', 'From', 'To'],
    panels.datasets.map((d) => [
      td(link(`/api/v11/datasets/${d.id}`, `#${d.id}`), 'n'), td(esc(d.symbol)), td(esc(d.timeframe)), td(`<span class="badge ${esc(d.source)}">${esc(d.source)}</span>`),
      td(esc(num(d.rows, 0)), 'n'), td(esc(day(d.first_ts).slice(0, 10))), td(esc(day(d.last_ts).slice(0, 10))),
    ]),
    'No datasets.',
  ) + more([['/api/v11/datasets', 'all datasets']])
  const health = `<p class="status ${esc(panels.health.status)}">Platform ${esc(panels.health.status)} · v${esc(panels.health.version)} · up ${esc(num(panels.health.uptime_s, 0))} s</p>` +
    `<ul class="components">${panels.health.components.map((c) =>
      `<li><span class="dot ${esc(c.status)}"></span><b>${esc(c.name)}</b> ${esc(c.detail)}</li>`).join('')}</ul>`
  const rpc = panels.rpc.configured
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
  const chartCaption = equity
    ? `Run ${link(runHref(equity.run_id), `#${equity.run_id}`)} · ${esc(equity.strategy ?? '?')} on ${esc(equity.symbol ?? equity.dataset_id)} · return ${esc(signed(equity.return_pct))} %`
    : 'The latest backtest that kept its equity curve (include: ["equity"]) is drawn here.'

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>NCM Hub · Command center</title>
<style>
  :root { --bg: #f4f6f9; --card: #fff; --ink: #1b2430; --muted: #5f6b7a; --line: #e1e6ed; --accent: #2458d6; --up: #137a43; --down: #c0392b; --warn: #b7791f; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); }
  header { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; padding: 14px 24px; background: #17202c; color: #fff; }
  header h1 { font-size: 18px; margin: 0; font-weight: 600; }
  header .mode { background: #f6c343; color: #17202c; border-radius: 4px; padding: 2px 8px; font-weight: 700; font-size: 12px; letter-spacing: .04em; }
  header nav { margin-left: auto; display: flex; gap: 14px; font-size: 13px; }
  header a { color: #cfe0ff; }
  header .generated { color: #aab6c5; font-size: 12px; }
  #panel-jobs { max-width: 1552px; margin: 0 auto 32px; }
  #panel-jobs progress { width: 160px; }
  #panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 16px; padding: 16px 24px 32px; max-width: 1600px; margin: 0 auto; }
  .panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; min-width: 0; overflow-x: auto; }
  .panel.wide { grid-column: 1 / -1; }
  .panel h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 10px; }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { font-size: 12px; color: var(--muted); font-weight: 600; }
  td.n { text-align: right; }
  td.small { font-size: 12px; color: var(--muted); white-space: normal; }
  .up { color: var(--up); } .down { color: var(--down); }
  .empty { color: var(--muted); font-style: italic; margin: 6px 0; }
  .badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; background: #eef1f5; }
  .badge.long { background: #dff3e7; color: var(--up); } .badge.short { background: #fbe3e0; color: var(--down); }
  .badge.synthetic { background: #efe7fb; color: #5b3c99; } .badge.import { background: #e3edff; color: var(--accent); }
  .kpis { display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px; margin: 0 0 12px; }
  .kpis div { background: #f7f9fc; border-radius: 6px; padding: 8px 10px; }
  .kpis dt { font-size: 11px; color: var(--muted); text-transform: uppercase; } .kpis dd { margin: 2px 0 0; font-size: 16px; font-weight: 600; }
  .components { list-style: none; padding: 0; margin: 0; } .components li { padding: 4px 0; border-bottom: 1px solid var(--line); }
  .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; background: var(--muted); }
  .dot.ok { background: var(--up); } .dot.degraded { background: var(--warn); } .dot.down { background: var(--down); }
  .status { font-weight: 600; margin: 0 0 8px; }
  .caption { color: var(--muted); font-size: 13px; margin: 0 0 6px; }
  .more { font-size: 12px; color: var(--muted); margin: 8px 0 0; }
  .panel a { color: var(--accent); }
  #equity-chart { width: 100%; height: auto; max-height: 340px; display: block; }
  #equity-chart .line { fill: none; stroke: var(--accent); stroke-width: 2; vector-effect: non-scaling-stroke; }
  #equity-chart .area { fill: rgba(36, 88, 214, .08); stroke: none; }
  #equity-chart .grid { stroke: var(--line); stroke-width: 1; }
  #equity-chart .start { stroke: var(--muted); stroke-dasharray: 4 4; stroke-width: 1; }
  #equity-chart .axis, #equity-chart .chart-empty { fill: var(--muted); font-size: 12px; }
</style>
</head>
<body>
<header>
  <h1>NCM Hub · Command center</h1>
  <span class="mode" title="${esc(data.mode.mode)}">PAPER ONLY · live trading off</span>
  <span class="generated" id="generated-at">generated ${esc(day(data.generated_at))} UTC</span>
  <nav><a href="/command-center">refresh</a><a href="/api/v6/command-center/panels">panels JSON</a><a href="/docs">API docs</a></nav>
</header>
<main id="panels">
  <section class="panel wide" id="panel-equity" data-panel="equity"><h2>Equity curve · latest stored curve</h2><p class="caption">${chartCaption}</p>${equityChartSvg(equity)}</section>
  <section class="panel" id="panel-positions" data-panel="positions"><h2>Positions &amp; P&amp;L</h2>${summary}${positions}</section>
  <section class="panel" id="panel-signals" data-panel="signals"><h2>Latest signals</h2>${signals}</section>
  <section class="panel" id="panel-runs" data-panel="runs"><h2>Recent runs</h2>${runs}</section>
  <section class="panel" id="panel-datasets" data-panel="datasets"><h2>Datasets</h2>${datasets}</section>
  <section class="panel" id="panel-health" data-panel="health"><h2>System health</h2>${health}</section>
  <section class="panel" id="panel-rpc" data-panel="rpc"><h2>Upstream RPC</h2>${rpc}</section>
</main>
<section class="panel wide" id="panel-jobs" data-panel="jobs"><h2>Jobs · live progress and recent results</h2>
  <p class="caption">Queued and running jobs follow their event stream (GET /api/v11/jobs/{id}/events); finished ones link their result.</p>
  <table><thead><tr><th>Job</th><th>Operation</th><th>State</th><th>Progress</th><th>Detail</th><th>Result</th></tr></thead><tbody id="jobs-body"><tr><td colspan="6" class="empty">loading…</td></tr></tbody></table>
</section>
<script>
  // Refreshes the panels in place every 30 s while the tab is visible; the page works without it.
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const res = await fetch('/command-center', { headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const next = doc.getElementById('panels');
      if (next) document.getElementById('panels').replaceWith(next);
      const stamp = doc.getElementById('generated-at');
      if (stamp) document.getElementById('generated-at').replaceWith(stamp);
    } catch { /* offline: keep what is shown */ }
  }, 30000);

  // The jobs panel: the newest jobs every 2 s; each queued or running job is followed on its SSE stream.
  const streams = new Map();
  const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
  function detail(p) {
    const parts = [p.phase];
    if (p.done !== null) parts.push(p.total !== null ? p.done + '/' + p.total : String(p.done));
    for (const [k, v] of Object.entries(p.counters)) if (!k.startsWith('configs_')) parts.push(k + ' ' + v);
    if (p.eta_s !== null) parts.push('eta ' + p.eta_s + ' s');
    return parts.join(' · ');
  }
  function renderJob(job) {
    let row = document.querySelector('#jobs-body tr[data-job="' + job.id + '"]');
    const fresh = !row;
    if (fresh) { row = document.createElement('tr'); row.dataset.job = job.id; }
    row.dataset.state = job.state;
    row.replaceChildren(cell(job.id.slice(0, 8)), cell(job.op), cell(job.state));
    const bar = document.createElement('progress');
    bar.max = 1;
    if (job.progress.fraction !== null) bar.value = job.progress.fraction;
    const td = document.createElement('td');
    td.append(bar);
    row.append(td, cell(detail(job.progress)));
    const result = document.createElement('td');
    if (job.result_url) { const a = document.createElement('a'); a.href = job.result_url; a.textContent = 'result'; result.append(a); }
    else if (job.refuse) result.textContent = job.refuse.reason;
    row.append(result);
    return { row, fresh };
  }
  function follow(job) {
    if (streams.has(job.id) || job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled') return;
    const source = new EventSource(job.events_url);
    streams.set(job.id, source);
    const update = (event) => renderJob(JSON.parse(event.data).job);
    source.addEventListener('progress', update);
    for (const final of ['succeeded', 'failed', 'cancelled']) {
      source.addEventListener(final, (event) => { update(event); source.close(); streams.delete(job.id); });
    }
  }
  async function refreshJobs() {
    if (document.hidden) return;
    try {
      const res = await fetch('/api/v11/jobs?limit=10');
      if (res.status === 401 || res.status === 403) {
        document.getElementById('jobs-body').innerHTML =
          '<tr><td colspan="6" class="empty">The job list needs scope admin:read on this host (ADMIN_TOKEN is set).</td></tr>';
        return;
      }
      if (!res.ok) return;
      const { jobs } = await res.json();
      const body = document.getElementById('jobs-body');
      const rows = jobs.map((job) => {
        const live = streams.has(job.id) && document.querySelector('#jobs-body tr[data-job="' + job.id + '"]');
        const row = live || renderJob(job).row;
        follow(job);
        return row;
      });
      if (rows.length) body.replaceChildren(...rows);
      else body.innerHTML = '<tr><td colspan="6" class="empty">No jobs yet: send a research request with Prefer: respond-async.</td></tr>';
    } catch { /* offline: keep what is shown */ }
  }
  refreshJobs();
  setInterval(refreshJobs, 2000);
</script>
</body>
</html>`
}
