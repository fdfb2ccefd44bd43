// Datasets: CSV import (all-or-nothing), lookup by id or symbol, and the public view of a dataset row.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { Refusal } from '../http/refusal.js'
import type { Sql } from '../store/sql.js'
import { bodyText } from '../body-parse/formats.js'
import { CsvError, csvOutcome, type CsvOptions, type CsvOutcome } from '../engines/trading/index.js'
import type { Bars } from '../engines/trading/types.js'
import type { QualityReport } from '../engines/trading/quality.js'
import { barsSha256Stepwise } from './checksum.js'
import { createTradingRepository, type DatasetRow, type TradingRepository } from './repository.js'

export const SYMBOL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:^=/-]{0,31}$/
export const TIMEFRAME_PATTERN = /^[1-9][0-9]{0,4}(ms|s|m|h|d|w|mo)$/

export interface DatasetView {
  id: number
  symbol: string
  timeframe: string
  source: 'synthetic' | 'import'
  rows: number
  first_ts: string | null
  last_ts: string | null
  sha256: string
  seed: number | null
  generator: Record<string, unknown> | null
  origin: string | null
  created_at: string
  quality: QualityReport | null
  quality_note?: string
}

export function datasetView(row: DatasetRow): DatasetView {
  return {
    id: row.id,
    symbol: row.symbol,
    timeframe: row.timeframe,
    source: row.source,
    rows: row.rows,
    first_ts: row.first_ts === null ? null : new Date(row.first_ts).toISOString(),
    last_ts: row.last_ts === null ? null : new Date(row.last_ts).toISOString(),
    sha256: row.sha256,
    seed: row.seed,
    generator: row.generator === null ? null : (JSON.parse(row.generator) as Record<string, unknown>),
    origin: row.origin,
    created_at: row.created_at,
    quality: row.quality === null ? null : (JSON.parse(row.quality) as QualityReport),
    ...(row.quality === null ? { quality_note: 'stored before datasets kept a quality report; import the bars again under another symbol or timeframe to get one' } : {}),
  }
}

/** `dataset` in a request: an id (number or digits), a symbol, or `symbol@timeframe` when a symbol has several. */
export async function resolveDataset(repo: TradingRepository, ref: number | string): Promise<DatasetRow> {
  const text = String(ref).trim()
  let found: DatasetRow | undefined
  if (/^\d+$/.test(text)) {
    found = await repo.datasetById(Number(text))
  } else {
    const at = text.lastIndexOf('@')
    const matches = at > 0
      ? (await repo.datasetsBySymbol(text.slice(0, at))).filter((d) => d.timeframe === text.slice(at + 1))
      : await repo.datasetsBySymbol(text)
    if (matches.length > 1) {
      throw new Refusal('invalid_input', `dataset "${text}" is ambiguous: ${matches.map(label).join(', ')}; name one by id or as symbol@timeframe`, {
        hints: { valid_choices: matches.map((d) => `${d.symbol}@${d.timeframe}`) },
      })
    }
    found = matches[0]
  }
  if (!found) {
    const all = await repo.datasets()
    throw new Refusal('not_found', `no dataset "${text}"; known: ${all.map(label).join(', ') || 'none'}`, {
      hints: { valid_choices: all.map((d) => ({ id: d.id, symbol: d.symbol, timeframe: d.timeframe })) },
    })
  }
  return found
}

const label = (d: DatasetRow): string => `#${d.id} ${d.symbol}@${d.timeframe}`

export interface ImportOptions {
  symbol: string
  /** Inferred from the bars' median spacing when absent (1d, 1h, 5m, …). */
  timeframe?: string | undefined
  /** Where the CSV came from: a file name or 'http'. */
  origin: string
  now: number
  /** Refuse a dataset with any quality issue (gaps, zero-volume bars, stale runs, outliers), naming the first line. */
  strict?: boolean
  /** Data rows imported at most (CSV_MAX_ROWS), counted as the reader counts them; none: no limit (the CLI's files). */
  maxRows?: number
  /** Decodes and parses the CSV (HTTP imports: in the mill); default here, on the caller's thread. */
  parse?: (csv: string | Uint8Array[], options: CsvOptions) => Promise<CsvOutcome>
}

const parseHere = async (csv: string | Uint8Array[], options: CsvOptions): Promise<CsvOutcome> => csvOutcome(bodyText(csv), options)

export interface ImportResult {
  dataset: DatasetView
  /** False when the same symbol and timeframe already held exactly these bars (a repeat import is a no-op). */
  created: boolean
}

/** A CSV that arrived without a line break was most likely sent with `curl -d`, which strips them. */
export const ONE_LINE_HINT = 'it arrived as one line: `curl -d` strips line breaks; send the file with ' +
  '`curl --data-binary @file.csv -H "content-type: text/csv"`'

/**
 * Parses, validates and stores a CSV in one transaction: a bad row is reported by line and nothing is written. Two
 * imports of one symbol and timeframe at once (two replicas): the unique (symbol, timeframe) decides, and the one that
 * lost finds the winner's dataset (the same bars: created false; other bars: conflict). `csv` is the file's text, or a
 * text/csv body's bytes as the body reader kept them (HTTP imports): `parse` moves those to the mill, which decodes
 * them, so the loop never holds the file as a string (and no longer holds its bytes once they are sent).
 */
export async function importCsvText(sql: Sql, csv: string | Uint8Array[], options: ImportOptions): Promise<ImportResult> {
  checkSymbol(options.symbol)
  if (options.timeframe !== undefined) checkTimeframe(options.timeframe)
  const parsed = await (options.parse ?? parseHere)(csv, options.maxRows === undefined ? {} : { maxRows: options.maxRows })
  if ('overRows' in parsed) {
    throw new Refusal('over_limit', `the CSV has more than ${parsed.overRows} rows (CSV_MAX_ROWS); import larger files with the ncm CLI`, {
      hints: { limit: 'CSV_MAX_ROWS', value: parsed.overRows },
    })
  }
  if ('issues' in parsed) {
    const { oneLine } = parsed
    throw new Refusal('invalid_input', `the CSV was not imported: ${new CsvError(parsed.issues).message}${oneLine ? `; ${ONE_LINE_HINT}` : ''}`, {
      issues: parsed.issues.map((i) => ({ path: `line ${i.line}`, message: i.message })),
      hints: { bad_rows: parsed.issues, ...(oneLine ? { line_breaks: ONE_LINE_HINT } : {}) },
    })
  }
  if (options.strict && parsed.quality.issues > 0) throw strictRefusal(parsed.quality)
  const bars: Bars = parsed.bars
  const timeframe = options.timeframe ?? inferTimeframe(bars.ts)
  const sha256 = await barsSha256Stepwise(bars)
  const repo = createTradingRepository(sql)
  const existingAnswer = (existing: DatasetRow): ImportResult => {
    if (existing.sha256 === sha256) return { dataset: datasetView(existing), created: false }
    throw new Refusal('conflict', `dataset ${label(existing)} already exists with other bars (sha256 ${existing.sha256.slice(0, 12)}…); import under another symbol or timeframe`, {
      hints: { existing: { id: existing.id, sha256: existing.sha256 } },
    })
  }
  const attempt = repo.transaction(async (tx) => {
    const existing = await tx.datasetByKey(options.symbol, timeframe)
    if (existing) return existingAnswer(existing)
    const row = await tx.insertDataset({
      symbol: options.symbol,
      timeframe,
      source: 'import',
      sha256,
      seed: null,
      generator: null,
      origin: options.origin,
      created_at: new Date(options.now).toISOString(),
      quality: JSON.stringify(parsed.quality),
    }, bars)
    return { dataset: datasetView(row), created: true }
  })
  try {
    return await attempt
  } catch (err) {
    if (err instanceof Refusal) throw err
    // The unique (symbol, timeframe) refused this insert: another import stored the dataset first.
    const winner = await repo.datasetByKey(options.symbol, timeframe)
    if (winner) return existingAnswer(winner)
    throw err
  }
}

/** ?strict=true: the first quality issue, with its line, refuses the whole import (nothing is written). */
function strictRefusal(quality: QualityReport): Refusal {
  const first = quality.first_issue!
  const counts = `${quality.gaps.count} gaps, ${quality.zero_volume.count} zero-volume bars, ${quality.stale.count} stale runs, ${quality.outliers.count} outlier returns`
  return new Refusal('invalid_input', `strict import refused: line ${first.line ?? '?'} (${first.time}) starts a ${first.kind.replace('_', '-')} issue; ${counts} in all`, {
    issues: [{ path: `line ${first.line ?? '?'}`, message: first.kind }],
    hints: { quality },
  })
}

/** What `ncm import file.csv --symbol GOOG` calls: reads the file and imports it (throws a Refusal on bad input). */
export function importCsvFile(
  sql: Sql,
  path: string,
  options: { symbol: string; timeframe?: string; now?: number },
): Promise<ImportResult> {
  const text = readFileSync(path, 'utf8')
  return importCsvText(sql, text, {
    symbol: options.symbol,
    timeframe: options.timeframe,
    origin: basename(path),
    now: options.now ?? Date.now(),
  })
}

export function checkSymbol(symbol: string): void {
  if (!SYMBOL_PATTERN.test(symbol)) {
    throw new Refusal('invalid_input', `symbol ${JSON.stringify(symbol)} must be 1–32 characters of letters, digits and . _ : ^ = / -, starting with a letter or digit`, {
      issues: [{ path: 'symbol', message: `must match ${SYMBOL_PATTERN.source}` }],
    })
  }
  // `dataset: "19"` names dataset id 19: a symbol of digits alone could never be named.
  if (/^\d+$/.test(symbol)) {
    throw new Refusal('invalid_input', `symbol ${JSON.stringify(symbol)} is all digits, which a request reads as a dataset id; add a letter (e.g. "S${symbol}")`, {
      issues: [{ path: 'symbol', message: 'must not be all digits (it would read as a dataset id)' }],
    })
  }
}

export function checkTimeframe(timeframe: string): void {
  if (!TIMEFRAME_PATTERN.test(timeframe)) {
    throw new Refusal('invalid_input', `timeframe ${JSON.stringify(timeframe)} must be a count and a unit, e.g. 1d, 4h, 5m, 1w`, {
      issues: [{ path: 'timeframe', message: `must match ${TIMEFRAME_PATTERN.source}` }],
    })
  }
}

const UNITS: Array<[string, number]> = [['w', 604_800_000], ['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]

/** The bars' median spacing in the largest unit that divides it (weekends and holidays do not move a median). */
export function inferTimeframe(ts: Float64Array): string {
  if (ts.length < 2) return '1d'
  const gaps = new Float64Array(ts.length - 1)
  for (let i = 1; i < ts.length; i++) gaps[i - 1] = ts[i]! - ts[i - 1]!
  const median = kthSmallest(gaps, Math.floor(gaps.length / 2))
  for (const [unit, ms] of UNITS) if (median >= ms && median % ms === 0) return `${median / ms}${unit}`
  return `${median}ms`
}

/**
 * The value a numeric sort would put at index k, found by partitioning in place (average O(n)): an import's timeframe
 * sorted 250k gaps on the loop for 10–35 ms to read one of them.
 */
export function kthSmallest(values: Float64Array, k: number): number {
  let lo = 0
  let hi = values.length - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i]! < pivot) i++
      while (values[j]! > pivot) j--
      if (i <= j) {
        const t = values[i]!
        values[i] = values[j]!
        values[j] = t
        i++
        j--
      }
    }
    // [lo, j] ≤ pivot ≤ [i, hi], and anything between i and j equals the pivot.
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return values[k]!
  }
  return values[k]!
}
