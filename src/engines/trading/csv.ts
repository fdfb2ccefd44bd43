// OHLCV CSV parsing and validation: `Date,Open,High,Low,Close,Volume` (any case, date column may be unnamed).
import type { Bars } from './types.js'
import { qualityOf, type QualityReport, type TimestampsRead } from './quality.js'

export interface CsvIssue {
  /** 1-based line number in the file (the header is line 1). */
  line: number
  message: string
}

export interface ParsedCsv {
  bars: Bars
  rows: number
  /** The file's layout: a header naming the columns, or an exchange kline dump (no header, epoch open times first). */
  layout: 'header' | 'kline'
  quality: QualityReport
}

/** A CSV that cannot become bars; `issues` lists every bad line found (up to a cap), first one in the message. */
export class CsvError extends Error {
  readonly issues: CsvIssue[]
  constructor(issues: CsvIssue[]) {
    const first = issues[0]
    super(first ? `line ${first.line}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}` : 'invalid CSV')
    this.name = 'CsvError'
    this.issues = issues
  }
}

const MAX_ISSUES = 50
const DATE_NAMES = new Set(['', 'date', 'datetime', 'time', 'timestamp', 'ts'])
const REQUIRED = ['open', 'high', 'low', 'close'] as const

/**
 * Parses and validates an OHLCV CSV. Dates: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]`, ISO 8601 with `T` and an
 * optional `Z`/offset (no offset = UTC), or epoch seconds / milliseconds. Volume may be absent (0).
 * Every row is checked: timestamps strictly increasing, prices finite and > 0, low ≤ open, close ≤ high,
 * volume finite and ≥ 0. Any problem throws `CsvError` naming the line; nothing partial is returned.
 */
export function parseOhlcvCsv(text: string, options: CsvOptions = {}): ParsedCsv {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
  let headerIdx = 0
  while (headerIdx < lines.length && lines[headerIdx]!.trim() === '') headerIdx++
  if (headerIdx >= lines.length) throw new CsvError([{ line: 1, message: 'empty file: expected a header Date,Open,High,Low,Close,Volume' }])

  // A kline dump (Binance's layout: open time in epoch ms or µs, open, high, low, close, volume, then 6 more columns)
  // has no header: its first line is already a bar.
  const firstCells = splitRow(lines[headerIdx]!).map((h) => h.trim())
  const kline = firstCells.length >= 6 && /^\d{10,16}$/.test(firstCells[0]!) && firstCells.slice(1, 6).every((c) => DECIMAL_RE.test(c))
  const header = kline
    ? ['date', 'open', 'high', 'low', 'close', 'volume', ...firstCells.slice(6).map((_c, k) => `column_${k + 7}`)]
    : firstCells.map((h) => h.toLowerCase())
  if (kline) headerIdx--
  if (options.maxRows !== undefined) refuseOverRows(lines, headerIdx + 1, options.maxRows)
  // A column named twice is ambiguous (which Close is the close?): refused, naming it, never the first taken.
  const twice = header.filter((h, i) => h !== '' && header.indexOf(h) !== i)
  if (twice.length) {
    throw new CsvError([{ line: headerIdx + 1, message: `header names ${[...new Set(twice)].map((h) => JSON.stringify(h)).join(', ')} more than once; each column may appear once` }])
  }
  const col = (name: string): number => header.indexOf(name)
  const dateCol = header.findIndex((h) => DATE_NAMES.has(h))
  const missing = REQUIRED.filter((name) => col(name) < 0)
  if (dateCol < 0) missing.unshift('date' as never)
  if (missing.length) {
    throw new CsvError([{
      line: headerIdx + 1,
      message: `header must name Date (or leave it empty), Open, High, Low, Close and optionally Volume; missing ${missing.join(', ')}`,
    }])
  }
  const [oCol, hCol, lCol, cCol] = REQUIRED.map(col) as [number, number, number, number]
  const vCol = col('volume')

  const cap = lines.length - headerIdx - 1
  const ts = new Float64Array(cap)
  const open = new Float64Array(cap)
  const high = new Float64Array(cap)
  const low = new Float64Array(cap)
  const close = new Float64Array(cap)
  const volume = new Float64Array(cap)
  const lineOf = new Int32Array(cap)
  const issues: CsvIssue[] = []
  const formats = new Set<TimestampsRead['format']>()
  const zones = new Set<string>()
  const report = (line: number, message: string): void => {
    if (issues.length < MAX_ISSUES) issues.push({ line, message })
  }

  let rows = 0
  let prevTs = -Infinity
  for (let li = headerIdx + 1; li < lines.length; li++) {
    const raw = lines[li]!
    if (raw.trim() === '') continue
    const lineNo = li + 1
    const cells = splitRow(raw)
    if (cells.length < header.length) {
      report(lineNo, `expected ${header.length} fields, found ${cells.length}`)
      continue
    }
    const dateText = cells[dateCol]!.trim()
    const t = parseTimestamp(dateText)
    if (t === null) {
      report(lineNo, `unreadable date ${JSON.stringify(dateText)}`)
      continue
    }
    const read = timestampRead(dateText)
    if (formats.size && !formats.has(read.format) && (read.format.startsWith('epoch') || [...formats][0]!.startsWith('epoch'))) {
      report(lineNo, `date ${JSON.stringify(dateText)} is ${read.format.replace('_', ' ')}, but earlier rows are ${[...formats][0]!.replace('_', ' ')}: one file, one unit`)
      continue
    }
    formats.add(read.format)
    zones.add(read.zone)
    const bad: string[] = []
    const o = numberCell(cells, oCol, 'open', bad), h = numberCell(cells, hCol, 'high', bad)
    const l = numberCell(cells, lCol, 'low', bad), c = numberCell(cells, cCol, 'close', bad)
    const v = vCol >= 0 ? numberCell(cells, vCol, 'volume', bad) : 0
    for (const [name, value] of [['open', o], ['high', h], ['low', l], ['close', c]] as const) {
      if (value <= 0) bad.push(`${name} must be positive (got ${value})`)
    }
    if (v < 0) bad.push(`volume must not be negative (got ${v})`)
    if (!bad.length) {
      // (NaN fields were reported above: these comparisons only run on readable numbers)
      if (l > Math.min(o, c)) bad.push(`low ${l} is above min(open, close) ${Math.min(o, c)}`)
      if (h < Math.max(o, c)) bad.push(`high ${h} is below max(open, close) ${Math.max(o, c)}`)
    }
    if (t <= prevTs) bad.push(`timestamp ${cells[dateCol]!.trim()} is not after the previous row's`)
    if (bad.length) {
      report(lineNo, bad.join('; '))
      if (t > prevTs) prevTs = t
      continue
    }
    prevTs = t
    ts[rows] = t
    open[rows] = o
    high[rows] = h
    low[rows] = l
    close[rows] = c
    volume[rows] = v
    lineOf[rows] = lineNo
    rows++
  }
  if (issues.length) throw new CsvError(issues)
  if (rows === 0) throw new CsvError([{ line: headerIdx + 2, message: 'no data rows after the header' }])
  const bars = {
    ts: ts.slice(0, rows), open: open.slice(0, rows), high: high.slice(0, rows),
    low: low.slice(0, rows), close: close.slice(0, rows), volume: volume.slice(0, rows),
  }
  const format = formats.has('iso') ? 'iso' : [...formats][0]!
  return {
    rows,
    bars,
    layout: kline ? 'kline' : 'header',
    quality: qualityOf(bars, lineOf.subarray(0, rows), { format, zones: [...zones].sort() }),
  }
}

/** How one accepted date cell was written, and the offset it carried. */
function timestampRead(cell: string): { format: TimestampsRead['format']; zone: string } {
  if (/^\d+(\.\d+)?$/.test(cell)) {
    const digits = cell.split('.')[0]!.length
    return { format: digits >= 16 ? 'epoch_us' : Number(cell.split('.')[0]) < 1e11 ? 'epoch_s' : 'epoch_ms', zone: 'UTC' }
  }
  const zone = /(Z|[+-]\d{2}:?\d{2})$/.exec(cell)?.[1]
  const normalised = !zone || zone === 'Z' || /^[+-]00:?00$/.test(zone) ? 'UTC' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone
  return { format: /^\d{4}-\d{2}-\d{2}$/.test(cell) ? 'date' : 'iso', zone: normalised }
}

export interface CsvOptions {
  /** More data rows than this (counted as the parser splits lines: \r\n, \n or \r; blank lines skipped) throw CsvRowLimit. */
  maxRows?: number
}

/** A CSV with more data rows than the reader was allowed to take. */
export class CsvRowLimit extends Error {
  constructor(readonly maxRows: number) {
    super(`the CSV has more than ${maxRows} rows`)
    this.name = 'CsvRowLimit'
  }
}

/** Counts the rows the parser would read from `from` on, stopping past the limit. */
function refuseOverRows(lines: readonly string[], from: number, maxRows: number): void {
  let rows = 0
  for (let i = from; i < lines.length; i++) {
    if (lines[i]!.trim() !== '' && ++rows > maxRows) throw new CsvRowLimit(maxRows)
  }
}

/**
 * A parsed CSV, its bad lines, or the row limit it passed: parseOhlcvCsv as a value, for callers across a thread. With
 * bad lines, `oneLine`: the text has no line break before its trailing whitespace (what `curl -d` makes of a file),
 * said here because the caller may never hold the text (an HTTP import's bytes are decoded in the mill).
 */
export type CsvOutcome = ParsedCsv | { issues: CsvIssue[]; oneLine: boolean } | { overRows: number }

export function csvOutcome(text: string, options: CsvOptions = {}): CsvOutcome {
  try {
    return parseOhlcvCsv(text, options)
  } catch (err) {
    if (err instanceof CsvError) return { issues: err.issues, oneLine: !/[\r\n]/.test(text.trimEnd()) }
    if (err instanceof CsvRowLimit) return { overRows: err.maxRows }
    throw err
  }
}

/** Splits one CSV row; double-quoted fields may hold commas and doubled quotes. */
function splitRow(line: string): string[] {
  if (!line.includes('"')) return line.split(',')
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++ }
      else if (ch === '"') quoted = false
      else cur += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') { out.push(cur); cur = '' }
    else cur += ch
  }
  out.push(cur)
  return out
}

/** A plain decimal: optional sign, digits with an optional fraction, optional exponent. No hex, binary, `Infinity`, `_`. */
const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
/** Digits with an optional fraction; at most 15 characters long, so at most 15 significant digits, which every double keeps. */
const SHORT_DECIMAL_RE = /^\d+(?:\.\d+)?$/

/** The number in cells[index], or NaN with the reason added to `bad`. */
function numberCell(cells: string[], index: number, name: string, bad: string[]): number {
  const value = decimal(cells[index]!)
  if (typeof value === 'number') return value
  bad.push(`${name} ${value}`)
  return NaN
}

/**
 * A number cell, or why it is refused: not a plain decimal (`0x10`, `1_000`, `Infinity`, empty), or a value a double
 * cannot hold exactly as written (more significant digits than it keeps, overflow, underflow): silently rounding a
 * price would change the data.
 */
export function decimal(cell: string): number | string {
  const text = cell.trim()
  if (text.length <= 15 && SHORT_DECIMAL_RE.test(text)) return Number(text)
  if (!DECIMAL_RE.test(text)) return `${JSON.stringify(text.length > 40 ? text.slice(0, 40) + '…' : text)} is not a decimal number`
  const value = Number(text)
  if (!Number.isFinite(value) || canonicalDecimal(text) !== canonicalDecimal(String(value))) {
    return `${text.length > 40 ? text.slice(0, 40) + '…' : text} cannot be represented exactly (nearest double: ${value})`
  }
  return value
}

/** Sign, significant digits and exponent of a decimal string: equal for equal values however they are written. */
function canonicalDecimal(text: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!
  const fraction = m[3] ?? ''
  let digits = (m[2] ?? '') + fraction
  let exponent = Number(m[4] ?? 0) - fraction.length
  digits = digits.replace(/^0+/, '')
  if (digits === '') return '0'
  const trailing = digits.length - digits.replace(/0+$/, '').length
  digits = digits.slice(0, digits.length - trailing)
  exponent += trailing
  return `${m[1] === '-' ? '-' : ''}${digits}e${exponent}`
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/
/** Widest UTC offset in use (UTC+14, Line Islands); anything wider is a typo, not a zone. */
const MAX_OFFSET_MINUTES = 14 * 60

/** Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear takes them as written (0000-02-29 exists, 1900-02-29 does not). */
function utcBeforeYear100(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.setUTCHours(hour, minute, second, ms)
}

/**
 * Epoch ms of a date cell, or null when it is not a date this parser accepts exactly: no two-digit-year shift (year 0050
 * is 0050), no leap second, no offset beyond ±14:00 or with minutes over 59, no fraction finer than a millisecond.
 */
export function parseTimestamp(cell: string): number | null {
  const m = DATE_RE.exec(cell)
  if (m) {
    const [, y, mo, d, hh, mi, ss, frac, zone] = m
    const month = Number(mo), day = Number(d), hour = Number(hh ?? 0), minute = Number(mi ?? 0), second = Number(ss ?? 0)
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null
    if (frac && /[1-9]/.test(frac.slice(3))) return null // below a millisecond: bars are stored in whole ms
    const year = Number(y), ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0
    let t = year >= 100 ? Date.UTC(year, month - 1, day, hour, minute, second, ms) : utcBeforeYear100(year, month, day, hour, minute, second, ms)
    if (new Date(t).getUTCDate() !== day) return null // e.g. 2021-02-30
    if (zone && zone !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1
      const digits = zone.slice(1).replace(':', '')
      const offsetHours = Number(digits.slice(0, 2)), offsetMinutes = Number(digits.slice(2))
      if (offsetMinutes > 59 || offsetHours * 60 + offsetMinutes > MAX_OFFSET_MINUTES) return null
      t -= sign * (offsetHours * 60 + offsetMinutes) * 60_000
    }
    return t
  }
  const micro = /^(\d{16})$/.exec(cell)
  if (micro) {
    // Epoch microseconds (kline dumps since 2025): whole milliseconds only, as bars are stored in ms.
    return cell.endsWith('000') ? Number(cell.slice(0, 13)) : null
  }
  const epoch = /^(\d{9,13})(?:\.(\d+))?$/.exec(cell)
  if (epoch) {
    const [, whole, fraction = ''] = epoch
    const seconds = Number(whole) < 1e11 // epoch seconds below 1e11, else milliseconds
    // Exactly whole milliseconds: seconds with up to 3 decimals, milliseconds with none (trailing zeros aside).
    if (/[1-9]/.test(fraction.slice(seconds ? 3 : 0))) return null
    return seconds ? Number(whole) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0')) : Number(whole)
  }
  return null
}
