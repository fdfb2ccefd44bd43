// Human renderings of answers for a terminal: tables for lists, aligned key/value blocks for records, a backtest's key
// figures, refusals with reason and hints. Pure functions of (data, style): the CLI, job progress and MCP text reuse them.

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
export function renderTable(rows: readonly Row[], style: Style = PLAIN, columns?: readonly string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))]
  if (rows.length === 0) return style.dim('(none)')
  const cells = rows.map((row) => cols.map((col) => cut(oneLine(formatValue(row[col])), MAX_CELL)))
  const widths = cols.map((col, i) => Math.max(col.length, ...cells.map((line) => line[i]!.length)))
  const numeric = cols.map((col) => rows.every((row) => row[col] === undefined || row[col] === null || rightAligned(row[col])))
  const pad = (text: string, i: number) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!))
  const header = cols.map((col, i) => style.bold(pad(col, i))).join('  ')
  const body = cells.map((line) => line.map(pad).join('  ').trimEnd())
  return [header.trimEnd(), ...body].join('\n')
}

const indent = (text: string, by: string) => text.split('\n').map((line) => (line ? by + line : line)).join('\n')

/** An aligned key/value block; nested records are indented under their key, lists of records become tables. */
export function renderRecord(record: Row, style: Style = PLAIN): string {
  const keys = Object.keys(record)
  if (keys.length === 0) return style.dim('(empty)')
  const flat = keys.filter((key) => isScalar(record[key]) || isScalarList(record[key]) || (Array.isArray(record[key]) && (record[key] as unknown[]).length === 0))
  const width = Math.max(...flat.map((key) => key.length), 0)
  const out: string[] = []
  for (const key of keys) {
    const value = record[key]
    if (flat.includes(key)) {
      const text = formatValue(value)
      const shown = text.includes('\n') ? '\n' + indent(text, '  ') : text
      out.push(`${style.cyan(key.padEnd(width))}  ${value === null || value === undefined ? style.dim(shown) : shown}`)
    } else if (Array.isArray(value)) {
      out.push(style.bold(`${key} (${value.length})`))
      out.push(indent(value.every(isRecord) ? renderTable(value as Row[], style) : value.map((v) => `- ${formatValue(v)}`).join('\n'), '  '))
    } else {
      out.push(style.bold(key))
      out.push(indent(renderRecord(value as Row, style), '  '))
    }
  }
  return out.join('\n')
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

/** Any answer: a backtest, a list of records, a record, or a scalar. */
export function renderData(data: unknown, style: Style = PLAIN): string {
  if (isBacktest(data)) return renderBacktest(data, style)
  if (Array.isArray(data)) return data.every(isRecord) ? renderTable(data as Row[], style) : data.map((v) => formatValue(v)).join('\n')
  if (isRecord(data)) return renderRecord(data, style)
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
