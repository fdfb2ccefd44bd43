// The command center page: server-rendered HTML of the panels with an SVG equity chart; no CDN, no build step.
import { COMMAND_CENTER_SCRIPT, COMMAND_CENTER_STYLE } from './page-assets.js'
import { day, esc, num } from './page-format.js'
import {
  accountSummary, chartCaption, datasetsPanel, healthPanel, positionsPanel, rpcPanel, runsPanel, signalsPanel, type Panels,
} from './page-panels.js'

/** The equity curve as an SVG polyline over a light grid; the points are already downsampled when stored. */
export function equityChartSvg(equity: Panels['panels']['equity']): string {
  const width = 880
  const height = 280
  const pad = { left: 72, right: 16, top: 16, bottom: 32 }
  const open = `<svg id="equity-chart" viewBox="0 0 ${width} ${height}" role="img" preserveAspectRatio="xMidYMid meet"`
  if (!equity || equity.points.length < 2) {
    return `${open} aria-label="no equity curve stored yet"><title>No equity curve stored yet</title>` +
      `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="chart-empty">No equity curve stored yet: run a backtest (POST /api/v11/trading/backtest)</text></svg>`
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
  const equity = panels.equity

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>NCM Hub · Command center</title>
<style>
${COMMAND_CENTER_STYLE}</style>
</head>
<body>
<header>
  <h1>NCM Hub · Command center</h1>
  <span class="mode" title="${esc(data.mode.mode)}">PAPER ONLY · live trading off</span>
  <span class="generated" id="generated-at">generated ${esc(day(data.generated_at))} UTC</span>
  <nav><a href="/command-center">refresh</a><a href="/api/v6/command-center/panels">panels JSON</a><a href="/docs">API docs</a></nav>
</header>
<main id="panels">
  <section class="panel wide" id="panel-equity" data-panel="equity"><h2>Equity curve · latest stored curve</h2><p class="caption">${chartCaption(panels)}</p>${equityChartSvg(equity)}</section>
  <section class="panel" id="panel-positions" data-panel="positions"><h2>Positions &amp; P&amp;L</h2>${accountSummary(panels)}${positionsPanel(panels)}</section>
  <section class="panel" id="panel-signals" data-panel="signals"><h2>Latest signals</h2>${signalsPanel(panels)}</section>
  <section class="panel" id="panel-runs" data-panel="runs"><h2>Recent runs</h2>${runsPanel(panels)}</section>
  <section class="panel" id="panel-datasets" data-panel="datasets"><h2>Datasets</h2>${datasetsPanel(panels)}</section>
  <section class="panel" id="panel-health" data-panel="health"><h2>System health</h2>${healthPanel(panels)}</section>
  <section class="panel" id="panel-rpc" data-panel="rpc"><h2>Upstream RPC</h2>${rpcPanel(panels)}</section>
</main>
<section class="panel wide" id="panel-jobs" data-panel="jobs"><h2>Jobs · live progress and recent results</h2>
  <p class="caption">Queued and running jobs follow their event stream (GET /api/v11/jobs/{id}/events); finished ones link their result.</p>
  <table><colgroup><col class="job"><col class="op"><col class="state"><col class="bar"><col class="detail"><col class="result"><col class="action"></colgroup>
  <thead><tr><th>Job</th><th>Operation</th><th>State</th><th>Progress</th><th>Detail</th><th>Result</th><th></th></tr></thead><tbody id="jobs-body"><tr><td colspan="7" class="empty">loading…</td></tr></tbody></table>
</section>
<script>
${COMMAND_CENTER_SCRIPT}</script>
</body>
</html>`
}
