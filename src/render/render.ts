// Human renderings of answers for a terminal: tables for lists, aligned key/value blocks for records, a backtest's key
// figures, refusals with reason and hints. Pure functions of (data, style): the CLI, job progress and MCP text reuse them.
import { listTable, type ListOptions } from './list-views.js'

export interface Style {
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
}

const same = (text: string) => text
export const PLAIN: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same }

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
export const COLOUR: Style = {
  bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39),
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): Style {
  return stream.isTTY && !env.NO_COLOR ? COLOUR : PLAIN
}

/** Longest cell in a table before it is cut with an ellipsis. */
export const MAX_CELL = 48

type Row = Record<string, unknown>

const isRecord = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value)
const isScalar = (value: unknown) => value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value)
const isScalarList = (value: unknown) => Array.isArray(value) && value.every(isScalar)

/** One value as text: null as an em dash, floats to 6 significant digits, lists joined with commas. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value)
    return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)))
  }
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (isScalarList(value)) return (value as unknown[]).map(formatValue).join(', ')
  return JSON.stringify(value)
}

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text)
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ⏎ ')
const rightAligned = (value: unknown) => typeof value === 'number'

/** A table of rows; columns are the union of the rows' keys in order of appearance. */
export function renderTable(rows: readonly Row[], style: Style = PLAIN, columns?: readonly string[], width = Infinity): string {
  const cols = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))]
  if (rows.length === 0) return style.dim('(none)')
  return renderCells(cols, rows.map((row) => cols.map((col) => row[col])), style, width)
}

/** Narrowest a column is cut to before columns are left out to fit the width. */
const MIN_CELL = 8

/**
 * A table of cells under a header, numbers right-aligned, fitted to `width`: the widest columns are cut first (with an
 * ellipsis, never under MIN_CELL), then columns are left out from the right, saying how many.
 */
export function renderCells(header: readonly string[], cells: readonly (readonly unknown[])[], style: Style = PLAIN, width = Infinity): string {
  if (cells.length === 0) return style.dim('(none)')
  const texts = cells.map((line) => line.map((value) => cut(oneLine(formatValue(value)), MAX_CELL)))
  const widths = header.map((col, i) => Math.max(col.length, ...texts.map((line) => line[i]!.length)))
  const total = (shown: number) => widths.slice(0, shown).reduce((sum, w) => sum + w, 0) + 2 * (shown - 1)
  let shown = header.length
  while (total(shown) > width) {
    const widest = widths.slice(1, shown).reduce((best, w, i) => (w > widths[best]! ? i + 1 : best), 1)
    if (shown > 1 && widths[widest]! > Math.max(MIN_CELL, header[widest]!.length)) {
      widths[widest] = Math.max(MIN_CELL, header[widest]!.length, widths[widest]! - (total(shown) - width))
    } else if (shown > 1) {
      shown--
    } else {
      break
    }
  }
  const numeric = header.map((_, i) => cells.every((line) => line[i] === undefined || line[i] === null || rightAligned(line[i])))
  const pad = (text: string, i: number) => (numeric[i] ? cut(text, widths[i]!).padStart(widths[i]!) : cut(text, widths[i]!).padEnd(widths[i]!))
  const head = header.slice(0, shown).map((col, i) => style.bold(pad(col, i))).join('  ')
  const body = texts.map((line) => line.slice(0, shown).map(pad).join('  ').trimEnd())
  const left = header.length - shown
  return [head.trimEnd(), ...body, ...(left > 0 ? [style.dim(`(${left} more column${left > 1 ? 's' : ''}: ${header.slice(shown).join(', ')}; --columns or a wider terminal)`)] : [])].join('\n')
}

const indent = (text: string, by: string) => text.split('\n').map((line) => (line ? by + line : line)).join('\n')

/**
 * How the terminal wants an answer: a list by its view (list-views.ts) fitted to the width, long lists and walk-forward
 * searches summarised unless `all`. Without options an answer is rendered whole (MCP's text).
 */
export interface RenderOptions extends ListOptions {
  all?: boolean
}

/** Rows of a nested list shown before "… N more" (unless --all). */
export const LONG_LIST = 10

/** An aligned key/value block; nested records are indented under their key, lists of records become tables. */
export function renderRecord(record: Row, style: Style = PLAIN, options?: RenderOptions, depth = 0): string {
  const keys = Object.keys(record)
  if (keys.length === 0) return style.dim('(empty)')
  const flat = keys.filter((key) => isScalar(record[key]) || isScalarList(record[key]) || (Array.isArray(record[key]) && (record[key] as unknown[]).length === 0))
  const width = Math.max(...flat.map((key) => key.length), 0)
  const out: string[] = []
  const inner = options ? { ...options, width: options.width - 2 * (depth + 1) } : undefined
  for (const key of keys) {
    const value = record[key]
    if (flat.includes(key)) {
      const text = formatValue(value)
      const shown = text.includes('\n') ? '\n' + indent(text, '  ') : text
      out.push(`${style.cyan(key.padEnd(width))}  ${value === null || value === undefined ? style.dim(shown) : shown}`)
    } else if (Array.isArray(value)) {
      const cutShort = options && !options.all && value.length > LONG_LIST
      const rows = cutShort ? value.slice(0, LONG_LIST) : value
      out.push(style.bold(`${key} (${value.length})`))
      out.push(indent(rows.every(isRecord) ? renderTable(rows as Row[], style, undefined, inner?.width) : rows.map((v) => `- ${formatValue(v)}`).join('\n'), '  '))
      if (cutShort) out.push(style.dim(`  … ${value.length - LONG_LIST} more (--all shows them)`))
    } else {
      out.push(style.bold(key))
      out.push(indent(renderRecord(value as Row, style, inner, depth + 1), '  '))
    }
  }
  return out.join('\n')
}

interface Page {
  name: string
  rows: Row[]
  next: string | null
  /** What the answer holds beside the list (a dataset's own record above a page of its bars). */
  rest: Row
}

const PAGING_FIELDS = new Set(['limit', 'next_cursor', 'pages'])

/** A page of a list (`{<list>: […], limit, next_cursor}`): the list's name and rows, or null when it is not one. */
export function pageOf(data: unknown): Page | null {
  if (!isRecord(data) || !('next_cursor' in data)) return null
  const lists = Object.entries(data).filter(([, v]) => Array.isArray(v) && v.every(isRecord))
  if (lists.length !== 1) return null
  const [name, rows] = lists[0]!
  const rest = Object.fromEntries(Object.entries(data).filter(([key]) => key !== name && !PAGING_FIELDS.has(key)))
  return { name, rows: rows as Row[], next: typeof data.next_cursor === 'string' ? data.next_cursor : null, rest }
}

/** A list as its view's table, fitted to the width, with how to read on; what the answer holds beside it first. */
export function renderPage(page: Page, style: Style, options: RenderOptions): string {
  const table = listTable(page.name, page.rows, options)
  const more = page.next ? ` · next page: --cursor ${page.next} (--all: every page)` : ''
  const head = Object.keys(page.rest).length > 0 ? `${renderRecord(page.rest, style, options)}\n\n${style.bold(page.name)}\n` : ''
  return `${head}${renderCells(table.header, table.rows, style, options.width)}\n${style.dim(`${page.rows.length} ${page.name}${more}`)}`
}

/** The figures of a backtest worth a first look, in backtesting.py's order, with units. */
export const BACKTEST_FIGURES: ReadonlyArray<readonly [key: string, label: string, unit: string]> = [
  ['return_pct', 'Return', '%'],
  ['buy_hold_return_pct', 'Buy & hold return', '%'],
  ['return_ann_pct', 'Return (ann.)', '%'],
  ['volatility_ann_pct', 'Volatility (ann.)', '%'],
  ['sharpe_ratio', 'Sharpe ratio', ''],
  ['sortino_ratio', 'Sortino ratio', ''],
  ['max_drawdown_pct', 'Max drawdown', '%'],
  ['trades', 'Trades', ''],
  ['win_rate_pct', 'Win rate', '%'],
  ['profit_factor', 'Profit factor', ''],
  ['exposure_pct', 'Exposure time', '%'],
  ['equity_final', 'Equity final', ''],
  ['commissions', 'Commissions', ''],
]

export function isBacktest(data: unknown): data is Row & { stats: Row } {
  return isRecord(data) && isRecord(data.stats) && 'return_pct' in data.stats && 'sharpe_ratio' in data.stats
}

const fixed = (value: unknown, unit: string) =>
  typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value) ? value.toFixed(2) + unit : formatValue(value) + (value === null ? '' : unit)

/** A backtest: what ran on what, then its key figures as a small table (the whole answer stays available with --json). */
export function renderBacktest(answer: Row & { stats: Row }, style: Style = PLAIN): string {
  const dataset = isRecord(answer.dataset) ? answer.dataset : {}
  const params = isRecord(answer.params) ? Object.entries(answer.params).map(([k, v]) => `${k}=${formatValue(v)}`).join(' ') : ''
  const run = isRecord(answer.run) ? answer.run : {}
  const head = renderRecord({
    strategy: `${formatValue(answer.strategy)}${params ? ` (${params})` : ''}`,
    dataset: `${formatValue(dataset.symbol)} ${formatValue(dataset.timeframe)} #${formatValue(dataset.id)}, ${formatValue(dataset.bars)} bars`,
    period: `${formatValue(answer.stats.start)} → ${formatValue(answer.stats.end)}`,
    run: `#${formatValue(run.id)}`,
  }, style)
  const rows = BACKTEST_FIGURES.filter(([key]) => key in answer.stats).map(([key, label, unit]) => [label, fixed(answer.stats[key], unit)] as const)
  const labelWidth = Math.max('figure'.length, ...rows.map(([label]) => label.length))
  const valueWidth = Math.max('value'.length, ...rows.map(([, value]) => value.length))
  const table = [
    `${style.bold('figure'.padEnd(labelWidth))}  ${style.bold('value'.padStart(valueWidth))}`,
    ...rows.map(([label, value]) => `${label.padEnd(labelWidth)}  ${value.startsWith('-') ? style.red(value.padStart(valueWidth)) : value.padStart(valueWidth)}`),
  ]
  return `${head}\n\n${table.join('\n')}`
}

/** A walk-forward signal search (max-edge-signal): its best configuration, folds and leaderboard. */
export function isWalkForward(data: unknown): data is Row & { best: Row; folds: unknown[]; leaderboard: Row[] } {
  return isRecord(data) && isRecord(data.best) && Array.isArray(data.folds) && Array.isArray(data.leaderboard) && data.leaderboard.every(isRecord)
}

const pct = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(2)}%` : '—')
const num = (value: unknown) => (typeof value === 'number' ? String(Number(value.toPrecision(4))) : '—')

/** A walk-forward search summarised: what won and how it held out of sample, then the leaderboard's top rows. */
export function renderWalkForward(answer: Row & { best: Row; folds: unknown[]; leaderboard: Row[] }, style: Style = PLAIN, width = Infinity): string {
  const rec = (value: unknown): Row => (isRecord(value) ? value : {})
  const dataset = rec(answer.dataset)
  const run = rec(answer.run)
  const windows = rec(answer.windows)
  const walk = rec(answer.walk_forward)
  const dsr = rec(answer.deflated_sharpe)
  const params = (value: unknown) => Object.entries(rec(value)).map(([k, v]) => `${k}=${formatValue(v)}`).join(' ')
  const head = renderRecord({
    dataset: `${formatValue(dataset.symbol)} ${formatValue(dataset.timeframe)} #${formatValue(dataset.id)}, ${formatValue(dataset.bars)} bars`,
    run: `#${formatValue(run.id)}`,
    signal: `${formatValue(answer.signal)} at ${formatValue(answer.signal_bar)}`,
    best: `${formatValue(answer.best.strategy)} ${params(answer.best.params)}: out-of-sample Sharpe ${num(answer.best.oos_sharpe)}, return ${pct(answer.best.oos_return_pct)}`,
    searched: `${formatValue(answer.configs_tried)} of ${formatValue(answer.configs_planned)} configurations over ${answer.folds.length} folds ` +
      `(${formatValue(windows.in_sample)} in-sample / ${formatValue(windows.out_of_sample)} out-of-sample bars, step ${formatValue(windows.step)})`,
    'walk-forward': `return ${pct(walk.return_pct)}, Sharpe ${num(walk.sharpe)} over ${formatValue(walk.bars)} bars`,
    'deflated Sharpe': `${num(dsr.dsr)} (PSR ${num(dsr.psr)}, ${formatValue(dsr.trials)} trials)`,
  }, style)
  const top = answer.leaderboard.slice(0, LONG_LIST).map((row, i) => ({ rank: i + 1, ...row, params: params(row.params) }))
  return [
    head, '',
    style.bold(`leaderboard (top ${top.length} of ${answer.leaderboard.length})`),
    indent(renderTable(top, style, undefined, width - 2), '  '), '',
    style.dim(`every fold and row: --all; the whole answer: --json`),
  ].join('\n')
}

/** Any answer: a backtest, a list of records, a record, or a scalar; with options, as the terminal wants it. */
export function renderData(data: unknown, style: Style = PLAIN, options?: RenderOptions): string {
  if (options) {
    const page = pageOf(data)
    if (page) return renderPage(page, style, options)
    if (isWalkForward(data) && !options.all) return renderWalkForward(data, style, options.width)
  }
  if (isBacktest(data)) return renderBacktest(data, style)
  if (Array.isArray(data)) return data.every(isRecord) ? renderTable(data as Row[], style, undefined, options?.width) : data.map((v) => formatValue(v)).join('\n')
  if (isRecord(data)) return renderRecord(data, style, options)
  return formatValue(data)
}

export interface RefusalView {
  code?: unknown
  reason?: unknown
  http_status?: unknown
  retry_after_s?: unknown
  issues?: Array<{ path: string; message: string }>
  hints?: Record<string, unknown>
}

/** A refusal for stderr: what was refused and why, each problem of the input, then the hints (closest names, choices…). */
export function renderRefusal(refuse: RefusalView, label: string, style: Style = PLAIN): string {
  const lines = [`${style.red(style.bold(`ncm ${label}: refused ${formatValue(refuse.code)}`))} ${style.dim(`(${formatValue(refuse.http_status)})`)}`,
    `  ${formatValue(refuse.reason)}`]
  for (const issue of refuse.issues ?? []) lines.push(`  ${style.yellow(issue.path)}: ${issue.message}`)
  const hints = { ...(refuse.hints ?? {}) }
  const closest = hints.closest
  delete hints.closest
  if (Array.isArray(closest) && closest.length > 0) lines.push(`  ${style.cyan('did you mean')}: ${closest.map(formatValue).join(', ')}`)
  for (const [key, value] of Object.entries(hints)) {
    const text = Array.isArray(value) ? value.map((v) => (isRecord(v) ? Object.values(v).map(formatValue).join(' ') : formatValue(v))).join(', ') : formatValue(value)
    lines.push(`  ${style.cyan(`hint ${key.replaceAll('_', ' ')}`)}: ${text}`)
  }
  if (refuse.retry_after_s !== undefined) lines.push(`  ${style.cyan('retry after')}: ${formatValue(refuse.retry_after_s)} s`)
  return lines.join('\n')
}

/** An RFC 9457 problem (the trading surface's errors) in the same layout. */
export function renderProblem(problem: Record<string, unknown>, status: number, label: string, style: Style = PLAIN): string {
  return [`${style.red(style.bold(`ncm ${label}: ${status} ${formatValue(problem.title ?? 'error')}`))}`, `  ${formatValue(problem.detail ?? '')}`].join('\n')
}
