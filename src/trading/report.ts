// A stored run as one self-contained HTML page a person reads: inline CSS (allowed by its hash in the page's own
// Content-Security-Policy) and inline SVG, no script, no request leaving the host. Bounded: the curve is the stored
// downsampled one, the trade list its first REPORT_TRADES, the grid its stored trials.
import { createHash } from 'node:crypto'
import { esc, num, signed } from './page-format.js'
import type { DatasetRow, RunRow } from './rows.js'
import type { RunTradeRow, RunTrialRow } from './repository-runs.js'

/** Trades listed in a report; all of them are one CSV download away. */
export const REPORT_TRADES = 200

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
.meta{color:#5b6475;font-size:13px}code{font-size:12px;background:#f2f4f8;padding:1px 4px;border-radius:3px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{padding:3px 8px;border-bottom:1px solid #eceff4;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}.up{color:#137a3a}.down{color:#b3261e}
svg{display:block;max-width:100%;height:auto}.grid{stroke:#e3e7ee;stroke-width:1}.axis{fill:#5b6475;font-size:11px}
.eq{fill:none;stroke:#2457c5;stroke-width:1.5}.dd{fill:#e7a29c;stroke:#b3261e;stroke-width:.8}
.m td{text-align:right;width:52px}.h0{background:#f4f5f7}.hp1{background:#e3f3e8}.hp2{background:#bfe5cb}.hp3{background:#8fd0a6}
.hn1{background:#fbe6e4}.hn2{background:#f4c2bd}.hn3{background:#e98f86}.verdict{padding:8px 12px;background:#f2f4f8;border-radius:6px}
.note{color:#5b6475;font-size:12px}`

/** The page's policy: nothing but its own style block (by hash) and inline SVG; no script, no fetch, no frame. */
export const REPORT_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

export interface ReportInput {
  run: RunRow
  dataset: DatasetRow | null
  /** The stored downsampled curve, [epoch ms, equity]. */
  equity: Array<[number, number]> | null
  trades: RunTradeRow[]
  tradeCount: number
  trials: Array<Omit<RunTrialRow, 'blocks'>>
  /** Why the run's results (trades, trials) are not shown: not stored whole yet; null when they are. */
  resultsNote: string | null
}

const STAT_LABELS: Record<string, string> = {
  return_pct: 'Return %', buy_hold_return_pct: 'Buy & hold return %', return_ann_pct: 'Return (ann.) %', volatility_ann_pct: 'Volatility (ann.) %',
  cagr_pct: 'CAGR %', sharpe_ratio: 'Sharpe ratio', sortino_ratio: 'Sortino ratio', calmar_ratio: 'Calmar ratio', max_drawdown_pct: 'Max. drawdown %',
  avg_drawdown_pct: 'Avg. drawdown %', max_drawdown_duration_days: 'Max. drawdown duration (days)', trades: 'Trades', win_rate_pct: 'Win rate %',
  best_trade_pct: 'Best trade %', worst_trade_pct: 'Worst trade %', avg_trade_pct: 'Avg. trade %', profit_factor: 'Profit factor',
  expectancy_pct: 'Expectancy %', sqn: 'SQN', kelly_criterion: 'Kelly criterion', exposure_pct: 'Exposure %', equity_final: 'Equity final',
  equity_peak: 'Equity peak', commissions: 'Commissions', alpha_pct: 'Alpha %', beta: 'Beta', duration_days: 'Duration (days)',
}

export function renderReport(input: ReportInput): string {
  const { run } = input
  const stats = JSON.parse(run.stats) as Record<string, unknown>
  const params = JSON.parse(run.params) as Record<string, unknown>
  const summary = run.summary ? (JSON.parse(run.summary) as { monthly?: Array<{ month: string; return_pct: number }> }) : null
  const title = `Run #${run.id} · ${run.kind}${run.strategy ? ` · ${run.strategy}` : ''}`
  const dataset = input.dataset ? `${input.dataset.symbol}@${input.dataset.timeframe} (dataset #${input.dataset.id})` : `dataset #${run.dataset_id}`
  const parts = [
    `<h1>${esc(title)}</h1>`,
    `<p class="meta">${esc(dataset)} · parameters ${esc(Object.entries(params).map(([k, v]) => `${k}=${String(v)}`).join(', ') || '—')} · stored ${esc(run.created_at)}<br>` +
      `fingerprint <code>${esc(run.fingerprint ?? 'none (stored before fingerprints)')}</code> · engine ${esc(run.engine_version ?? 'unknown')} · ` +
      `<a href="/api/v11/runs/${run.id}">the run as JSON</a></p>`,
  ]
  if (input.resultsNote) parts.push(`<p class="note" id="results-not-stored">${esc(input.resultsNote)}</p>`)
  if (run.kind === 'backtest') {
    parts.push('<h2>Equity and drawdown</h2>', equityChart(input.equity, run.id))
    parts.push('<h2>Statistics</h2>', statsTable(stats))
    parts.push('<h2>Monthly returns %</h2>', monthlyTable(summary?.monthly ?? null))
    parts.push(`<h2>Trades</h2>`, tradesTable(input.trades, input.tradeCount, run.id))
  } else if (run.kind === 'max_edge' || run.kind === 'full_cycle_search') {
    parts.push('<h2>Verdict on overfitting</h2>', verdict(stats))
    parts.push('<h2>Parameter grid (out-of-sample Sharpe, annualised)</h2>', gridHeatMaps(input.trials))
    parts.push('<h2>Walk-forward folds</h2>', foldsTable(stats.folds))
    if (stats.oos_stats && typeof stats.oos_stats === 'object') parts.push('<h2>Best configuration out of sample</h2>', statsTable(stats.oos_stats as Record<string, unknown>))
  } else {
    parts.push('<h2>Statistics</h2>', plainTable(stats))
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body>${parts.join('\n')}</body></html>`
}

/** Equity as a line over a light grid, its drawdown (from the plotted points' running peak) as an area beneath. */
function equityChart(points: Array<[number, number]> | null, runId: number): string {
  if (!points || points.length < 2) return '<p class="note">No equity curve is stored with this run.</p>'
  const width = 900
  const top = { h: 260, pad: 14 }
  const dd = { h: 110 }
  const left = 70
  const t0 = points[0]![0]
  const t1 = points[points.length - 1]![0]
  const values = points.map((p) => p[1])
  let lo = Math.min(...values)
  let hi = Math.max(...values)
  if (hi === lo) { hi += 1; lo -= 1 }
  const x = (t: number) => left + ((t - t0) / Math.max(1, t1 - t0)) * (width - left - 10)
  const y = (v: number) => top.pad + (1 - (v - lo) / (hi - lo)) * (top.h - 2 * top.pad)
  let peak = -Infinity
  const drawdowns = values.map((v) => { peak = Math.max(peak, v); return (v / peak - 1) * 100 })
  const worst = Math.min(-0.01, ...drawdowns)
  const yd = (d: number) => top.h + 6 + (d / worst) * (dd.h - 12)
  const line = points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  const area = `${x(t0).toFixed(1)},${yd(0).toFixed(1)} ` + points.map(([t], i) => `${x(t).toFixed(1)},${yd(drawdowns[i]!).toFixed(1)}`).join(' ') +
    ` ${x(t1).toFixed(1)},${yd(0).toFixed(1)}`
  const ticks = [0, 0.5, 1].map((f) => lo + f * (hi - lo))
  const grid = ticks.map((v) => `<line class="grid" x1="${left}" x2="${width - 10}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>` +
    `<text class="axis" x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(num(v, 0))}</text>`).join('')
  const day = (t: number) => new Date(t).toISOString().slice(0, 10)
  return `<svg id="equity" viewBox="0 0 ${width} ${top.h + dd.h + 20}" role="img" aria-label="equity curve and drawdown">` +
    `<title>Equity ${esc(num(values[0], 0))} → ${esc(num(values[values.length - 1], 0))}; deepest drawdown of the plotted points ${esc(num(worst, 2))} %</title>` +
    grid + `<polyline class="eq" data-points="${points.length}" points="${line}"/>` +
    `<polygon class="dd" data-points="${points.length}" points="${area}"/>` +
    `<text class="axis" x="${left - 6}" y="${(yd(worst) + 4).toFixed(1)}" text-anchor="end">${esc(num(worst, 1))} %</text>` +
    `<text class="axis" x="${left}" y="${top.h + dd.h + 16}">${day(t0)}</text>` +
    `<text class="axis" x="${width - 10}" y="${top.h + dd.h + 16}" text-anchor="end">${day(t1)}</text></svg>` +
    `<p class="note">${points.length} points: the curve as stored with the run (downsampled, each bucket keeps its low and its high); every bar: ` +
    `<a href="/api/v11/runs/${runId}/equity">/api/v11/runs/${runId}/equity</a> (JSON, paged; with Accept: text/csv one CSV file).</p>`
}

function statsTable(stats: Record<string, unknown>): string {
  const rows = Object.entries(STAT_LABELS)
    .filter(([key]) => key in stats)
    .map(([key, label]) => `<tr><td>${esc(label)}</td><td class="n">${esc(num(stats[key], key === 'trades' ? 0 : 2))}</td></tr>`)
  const annualization = stats.annualization as { periods_per_year?: number; basis?: string } | undefined
  return `<table id="stats"><tbody>${rows.join('')}</tbody></table>` +
    `<p class="note">Computed by the engine from the stored bars with backtesting.py 0.6.6's definitions (provenance: computed). ` +
    (annualization ? `Annualised with ${esc(num(annualization.periods_per_year, 0))} periods a year: ${esc(annualization.basis ?? '')}.` : 'Annualisation basis not stored with this run.') +
    ` Period ${esc(String(stats.start ?? '—'))} → ${esc(String(stats.end ?? '—'))}.</p>`
}

function plainTable(stats: Record<string, unknown>): string {
  const rows = Object.entries(stats).filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td class="n">${esc(num(v, 4))}</td></tr>`)
  return `<table><tbody>${rows.join('')}</tbody></table>`
}

const heat = (r: number): string => {
  const step = r === 0 ? 0 : Math.min(3, Math.ceil(Math.abs(r) / 2))
  return step === 0 ? 'h0' : `h${r > 0 ? 'p' : 'n'}${step}`
}

function monthlyTable(monthly: Array<{ month: string; return_pct: number }> | null): string {
  if (!monthly?.length) return '<p class="note">Monthly returns are not stored with this run (stored before reports).</p>'
  const years = new Map<string, Map<number, number>>()
  for (const { month, return_pct } of monthly) {
    const [year, m] = month.split('-')
    if (!years.has(year!)) years.set(year!, new Map())
    years.get(year!)!.set(Number(m), return_pct)
  }
  const head = `<tr><th>Year</th>${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].map((m) => `<th class="n">${m}</th>`).join('')}<th class="n">Year</th></tr>`
  const body = [...years].map(([year, months]) => {
    let compounded = 1
    const cells = Array.from({ length: 12 }, (_v, i) => {
      const r = months.get(i + 1)
      if (r === undefined) return '<td></td>'
      compounded *= 1 + r / 100
      return `<td class="${heat(r)}">${esc(num(r, 1))}</td>`
    }).join('')
    const total = (compounded - 1) * 100
    return `<tr><th>${esc(year)}</th>${cells}<td class="${heat(total / 4)}">${esc(num(total, 1))}</td></tr>`
  })
  return `<table class="m" id="monthly"><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`
}

function tradesTable(trades: RunTradeRow[], total: number, runId: number): string {
  if (total === 0) return '<p class="note">No trades.</p>'
  const rows = trades.map((t) => `<tr><td class="n">${t.seq}</td><td>${esc(new Date(Number(t.entry_ts)).toISOString().slice(0, 16).replace('T', ' '))}</td>` +
    `<td>${t.exit_ts === null ? 'open' : esc(new Date(Number(t.exit_ts)).toISOString().slice(0, 16).replace('T', ' '))}</td><td class="n">${esc(num(t.size, 0))}</td>` +
    `<td class="n">${esc(num(t.entry_price, 2))}</td><td class="n">${esc(num(t.exit_price, 2))}</td>` +
    `<td class="n ${t.pnl > 0 ? 'up' : t.pnl < 0 ? 'down' : ''}">${esc(signed(t.pnl, 2))}</td><td class="n">${esc(signed(t.return_pct, 2))}</td></tr>`)
  const csv = `/api/v11/runs/${runId}/trades`
  return `<table id="trades"><thead><tr><th class="n">#</th><th>Entry</th><th>Exit</th><th class="n">Size</th><th class="n">Entry price</th>` +
    `<th class="n">Exit price</th><th class="n">P&amp;L</th><th class="n">Return %</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="note">${trades.length < total ? `The first ${trades.length} of ${total} trades. ` : `All ${total} trades. `}` +
    `Every trade: <a href="${csv}">${csv}</a> (JSON, paged; with Accept: text/csv one CSV file).</p>`
}

function verdict(stats: Record<string, unknown>): string {
  const o = stats.overfitting as { trials?: number; deflated_sharpe?: number | null; pbo?: number | null; pbo_detail?: { blocks?: number; combinations?: number } } | undefined
  if (!o) return '<p class="note">This run was stored before searches kept a verdict on overfitting.</p>'
  const pct = (v: number | null | undefined) => (typeof v === 'number' ? `${num(v * 100, 1)} %` : '—')
  return `<p class="verdict" id="verdict">${esc(num(o.trials, 0))} configurations tried. Deflated Sharpe ratio of the best: <b>${pct(o.deflated_sharpe)}</b> ` +
    `(the probability its out-of-sample Sharpe is real after that many trials). Probability of backtest overfitting: <b>${pct(o.pbo)}</b> ` +
    `(CSCV over ${esc(num(o.pbo_detail?.blocks, 0))} blocks, ${esc(num(o.pbo_detail?.combinations, 0))} combinations: how often the in-sample best ` +
    'ranks at or below the median out of sample).</p>'
}

/** Per strategy: a heat map over its first two parameters (the others fixed at each cell's best), or a list. */
function gridHeatMaps(trials: ReportInput['trials']): string {
  if (trials.length === 0) return '<p class="note">No trials are stored with this run.</p>'
  const byStrategy = new Map<string, Array<{ params: Record<string, number>; score: number | null }>>()
  for (const t of trials) {
    if (!byStrategy.has(t.strategy)) byStrategy.set(t.strategy, [])
    byStrategy.get(t.strategy)!.push({ params: JSON.parse(t.params) as Record<string, number>, score: t.score })
  }
  const scores = trials.map((t) => t.score).filter((s): s is number => s !== null && Number.isFinite(s))
  const lo = Math.min(0, ...scores)
  const hi = Math.max(0, ...scores)
  const color = (s: number | null) => {
    if (s === null) return '#e9ecf1'
    const f = s >= 0 ? s / (hi || 1) : s / (lo || -1)
    const mix = (a: number, b: number) => Math.round(a + (b - a) * Math.min(1, Math.abs(f)))
    return s >= 0 ? `rgb(${mix(244, 40)},${mix(245, 140)},${mix(247, 80)})` : `rgb(${mix(244, 200)},${mix(245, 50)},${mix(247, 40)})`
  }
  return [...byStrategy].map(([strategy, cells]) => {
    const names = Object.keys(cells[0]!.params)
    const [px, py] = [names[0], names[1]]
    if (!px) return ''
    const xs = [...new Set(cells.map((c) => c.params[px]!))].sort((a, b) => a - b)
    const ys = py ? [...new Set(cells.map((c) => c.params[py]!))].sort((a, b) => a - b) : [0]
    const best = new Map<string, number | null>()
    for (const c of cells) {
      const key = `${c.params[px]}|${py ? c.params[py] : 0}`
      const prev = best.get(key)
      if (prev === undefined || (c.score ?? -Infinity) > (prev ?? -Infinity)) best.set(key, c.score)
    }
    const cw = 56, ch = 26, left = 70, topPad = 24
    const rects = ys.flatMap((yv, j) => xs.map((xv, i) => {
      const score = best.get(`${xv}|${yv}`)
      if (score === undefined) return ''
      return `<rect class="cell" x="${left + i * cw}" y="${topPad + j * ch}" width="${cw - 2}" height="${ch - 2}" fill="${color(score)}"><title>${esc(`${px}=${xv}${py ? `, ${py}=${yv}` : ''}: ${num(score, 2)}`)}</title></rect>` +
        `<text class="axis" x="${left + i * cw + cw / 2 - 1}" y="${topPad + j * ch + 17}" text-anchor="middle">${esc(num(score, 2))}</text>`
    })).join('')
    const xLabels = xs.map((xv, i) => `<text class="axis" x="${left + i * cw + cw / 2}" y="16" text-anchor="middle">${esc(String(xv))}</text>`).join('')
    const yLabels = py ? ys.map((yv, j) => `<text class="axis" x="${left - 6}" y="${topPad + j * ch + 17}" text-anchor="end">${esc(String(yv))}</text>`).join('') : ''
    return `<h3>${esc(strategy)} <span class="note">${esc(px)} across${py ? `, ${esc(py)} down` : ''}${names.length > 2 ? '; other parameters at each cell\'s best' : ''}</span></h3>` +
      `<svg class="heatmap" data-strategy="${esc(strategy)}" viewBox="0 0 ${left + xs.length * cw + 10} ${topPad + ys.length * ch + 6}" role="img">${xLabels}${yLabels}${rects}</svg>`
  }).join('')
}

function foldsTable(folds: unknown): string {
  if (!Array.isArray(folds) || folds.length === 0) return '<p class="note">The folds were not stored with this run.</p>'
  const rows = (folds as Array<Record<string, any>>).map((f, k) => `<tr><td class="n">${k + 1}</td>` +
    `<td>${esc(String(f.in_sample?.start ?? '').slice(0, 10))} → ${esc(String(f.in_sample?.end ?? '').slice(0, 10))}</td>` +
    `<td>${esc(String(f.out_of_sample?.start ?? '').slice(0, 10))} → ${esc(String(f.out_of_sample?.end ?? '').slice(0, 10))}</td>` +
    `<td>${esc(`${f.chosen?.strategy ?? ''} ${Object.entries(f.chosen?.params ?? {}).map(([k2, v]) => `${k2}=${String(v)}`).join(', ')}`)}</td>` +
    `<td class="n">${esc(num(f.is_sharpe, 2))}</td><td class="n">${esc(num(f.oos_sharpe, 2))}</td><td class="n">${esc(signed(f.oos_return_pct, 2))}</td></tr>`)
  return `<table id="folds"><thead><tr><th class="n">Fold</th><th>In sample</th><th>Out of sample</th><th>Chosen</th><th class="n">IS Sharpe</th>` +
    `<th class="n">OOS Sharpe</th><th class="n">OOS return %</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}
