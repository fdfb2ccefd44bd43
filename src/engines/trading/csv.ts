// OHLCV CSV parsing and validation: `Date,Open,High,Low,Close,Volume` (any case, date column may be unnamed).
import type { Bars } from './types.js'

export interface CsvIssue {
  /** 1-based line number in the file (the header is line 1). */
  line: number
  message: string
}

export interface ParsedCsv {
  bars: Bars
  rows: number
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
export function parseOhlcvCsv(text: string): ParsedCsv {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
  let headerIdx = 0
  while (headerIdx < lines.length && lines[headerIdx]!.trim() === '') headerIdx++
  if (headerIdx >= lines.length) throw new CsvError([{ line: 1, message: 'empty file: expected a header Date,Open,High,Low,Close,Volume' }])

  const header = splitRow(lines[headerIdx]!).map((h) => h.trim().toLowerCase())
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
  const issues: CsvIssue[] = []
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
    const t = parseTimestamp(cells[dateCol]!.trim())
    if (t === null) {
      report(lineNo, `unreadable date ${JSON.stringify(cells[dateCol]!.trim())}`)
      continue
    }
    const o = num(cells[oCol]!), h = num(cells[hCol]!), l = num(cells[lCol]!), c = num(cells[cCol]!)
    const v = vCol >= 0 ? num(cells[vCol]!) : 0
    const bad: string[] = []
    for (const [name, value] of [['open', o], ['high', h], ['low', l], ['close', c]] as const) {
      if (!Number.isFinite(value)) bad.push(`${name} is not a number`)
      else if (value <= 0) bad.push(`${name} must be positive (got ${value})`)
    }
    if (!Number.isFinite(v) || v < 0) bad.push(`volume must be a non-negative number (got ${cells[vCol] ?? ''})`)
    if (!bad.length) {
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
    rows++
  }
  if (issues.length) throw new CsvError(issues)
  if (rows === 0) throw new CsvError([{ line: headerIdx + 2, message: 'no data rows after the header' }])
  return {
    rows,
    bars: {
      ts: ts.slice(0, rows), open: open.slice(0, rows), high: high.slice(0, rows),
      low: low.slice(0, rows), close: close.slice(0, rows), volume: volume.slice(0, rows),
    },
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

function num(cell: string): number {
  const s = cell.trim()
  return s === '' ? NaN : Number(s)
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** Epoch ms of a date cell, or null when it is not a date this parser accepts. */
export function parseTimestamp(cell: string): number | null {
  const m = DATE_RE.exec(cell)
  if (m) {
    const [, y, mo, d, hh, mi, ss, frac, zone] = m
    const month = Number(mo), day = Number(d), hour = Number(hh ?? 0), minute = Number(mi ?? 0), second = Number(ss ?? 0)
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null
    let t = Date.UTC(Number(y), month - 1, day, hour, minute, second, frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0)
    if (new Date(t).getUTCDate() !== day) return null // e.g. 2021-02-30
    if (zone && zone !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1
      const digits = zone.slice(1).replace(':', '')
      t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
    }
    return t
  }
  if (/^\d{9,13}(\.\d+)?$/.test(cell)) {
    const v = Number(cell)
    return v < 1e11 ? Math.round(v * 1000) : Math.round(v) // epoch seconds below 1e11, else milliseconds
  }
  return null
}
