// What may be real in a series of bars but changes results, reported rather than refused: gaps in its calendar,
// zero-volume bars, stale runs of identical closes, outlier returns; with the timeframe and timestamps it was read with.
import type { Bars } from './types.js'

const DAY_MS = 86_400_000

/** Consecutive identical closes that make a stale run. */
export const STALE_RUN_BARS = 5
/** A return this many robust standard deviations (1.4826 × MAD of log returns) from the median is an outlier. */
export const OUTLIER_SIGMAS = 10

export interface TimestampsRead {
  /** How the date column was written: ISO dates, ISO date-times, or epoch seconds / milliseconds / microseconds. */
  format: 'date' | 'iso' | 'epoch_s' | 'epoch_ms' | 'epoch_us'
  /** The offsets the times carried ('UTC' when none or Z), each normalised to UTC. */
  zones: string[]
}

export interface Located {
  /** 1-based line of the file (CSV), or row (Parquet); null for bars that came from no file. */
  line: number | null
  time: string
}

export interface QualityReport {
  timeframe: string
  timestamps: { format: TimestampsRead['format'] | 'generated'; zone: string; normalised_to: 'UTC' }
  gaps: { count: number; largest_s: number | null; first: { after: string; before: string; line: number | null } | null; rule: string }
  /** Single whole weekdays without bars in weekday-only data (exchange holidays): not counted as gaps. */
  closed_days: number
  zero_volume: { count: number; first: Located | null; volume: 'present' | 'absent' }
  stale: { count: number; longest: number; first: Located | null; rule: string }
  outliers: { count: number; largest_abs_return_pct: number | null; first: Located | null; rule: string }
  /** Gaps, zero-volume bars, stale runs and outliers together; `?strict=true` refuses a dataset with any. */
  issues: number
  first_issue: { kind: 'gap' | 'zero_volume' | 'stale' | 'outlier'; line: number | null; time: string } | null
}

const iso = (ms: number): string => new Date(ms).toISOString()
const dow = (t: number): number => ((Math.floor(t / DAY_MS) + 4) % 7 + 7) % 7 // 0 = Sunday
const isWeekend = (t: number): boolean => dow(t) === 0 || dow(t) === 6
const tod = (t: number): number => ((t % DAY_MS) + DAY_MS) % DAY_MS

/** The median spacing as a timeframe label. */
export function timeframeOf(step: number): string {
  for (const [unit, size] of [['w', 7 * DAY_MS], ['d', DAY_MS], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (step >= size && step % size === 0) return `${step / size}${unit}`
  }
  return `${step}ms`
}

function medianSpacing(ts: Float64Array): number {
  if (ts.length < 2) return DAY_MS
  const gaps = Array.from({ length: ts.length - 1 }, (_v, i) => ts[i + 1]! - ts[i]!).sort((a, b) => a - b)
  return gaps[gaps.length >> 1]!
}

function mode(values: number[]): number {
  const counts = new Map<number, number>()
  let best = values[0] ?? 0
  for (const v of values) {
    const c = (counts.get(v) ?? 0) + 1
    counts.set(v, c)
    if (c > (counts.get(best) ?? 0)) best = v
  }
  return best
}

/** Expected trading days strictly between two UTC days (weekdays only, or every day). */
function daysBetween(a: number, b: number, weekdaysOnly: boolean): number {
  let n = 0
  for (let d = Math.floor(a / DAY_MS) + 1; d < Math.floor(b / DAY_MS); d++) if (!weekdaysOnly || !isWeekend(d * DAY_MS)) n++
  return n
}

export function qualityOf(bars: Bars, lines: Int32Array | null, read: TimestampsRead | null): QualityReport {
  const { ts, close, volume } = bars
  const n = ts.length
  const lineOf = (i: number): number | null => (lines ? lines[i]! : null)
  const at = (i: number): Located => ({ line: lineOf(i), time: iso(ts[i]!) })
  const step = medianSpacing(ts)
  let weekend = 0
  for (let i = 0; i < n; i++) if (isWeekend(ts[i]!)) weekend++
  const weekdaysOnly = n > 0 && weekend / n < 0.01
  const firstIssue: Array<{ i: number; kind: NonNullable<QualityReport['first_issue']>['kind'] }> = []

  // Gaps against the bars' own calendar: weekends when the data has none, and for intraday bars the session its
  // days usually open and close at (UTC), are not gaps; a single missing weekday in weekday-only data is a closed day.
  let gaps = 0
  let largest = 0
  let firstGap: QualityReport['gaps']['first'] = null
  let closedDays = 0
  const intraday = step < DAY_MS
  const starts: number[] = []
  const ends: number[] = []
  for (let i = 0; i < n; i++) {
    if (i === 0 || Math.floor(ts[i]! / DAY_MS) !== Math.floor(ts[i - 1]! / DAY_MS)) starts.push(tod(ts[i]!))
    if (i === n - 1 || Math.floor(ts[i + 1]! / DAY_MS) !== Math.floor(ts[i]! / DAY_MS)) ends.push(tod(ts[i]!))
  }
  const sessionStart = mode(starts)
  const sessionEnd = mode(ends)
  for (let i = 1; i < n; i++) {
    const a = ts[i - 1]!
    const b = ts[i]!
    const spacing = b - a
    if (spacing <= step) continue
    let gap: boolean
    if (step >= 7 * DAY_MS) gap = spacing > 1.5 * step
    else {
      const sameDay = Math.floor(a / DAY_MS) === Math.floor(b / DAY_MS)
      const partial = intraday && (sameDay || tod(a) < sessionEnd || tod(b) > sessionStart)
      const wholeDays = sameDay ? 0 : daysBetween(a, b, weekdaysOnly)
      gap = partial || wholeDays >= 2 || (wholeDays === 1 && !weekdaysOnly)
      if (!gap && wholeDays === 1) closedDays++
    }
    if (!gap) continue
    gaps++
    largest = Math.max(largest, spacing)
    if (!firstGap) {
      firstGap = { after: iso(a), before: iso(b), line: lineOf(i) }
      firstIssue.push({ i, kind: 'gap' })
    }
  }

  const hasVolume = volume.some((v) => v !== 0)
  let zero = 0
  let firstZero = -1
  if (hasVolume) {
    for (let i = 0; i < n; i++) {
      if (volume[i] === 0) {
        zero++
        if (firstZero < 0) firstZero = i
      }
    }
  }
  if (firstZero >= 0) firstIssue.push({ i: firstZero, kind: 'zero_volume' })

  let stale = 0
  let longest = 0
  let firstStale = -1
  for (let i = 0; i < n;) {
    let j = i + 1
    while (j < n && close[j] === close[i]) j++
    const run = j - i
    if (run >= STALE_RUN_BARS) {
      stale++
      longest = Math.max(longest, run)
      if (firstStale < 0) firstStale = i
    }
    i = j
  }
  if (firstStale >= 0) firstIssue.push({ i: firstStale, kind: 'stale' })

  const logReturns = Array.from({ length: Math.max(0, n - 1) }, (_v, i) => Math.log(close[i + 1]! / close[i]!))
  const sorted = [...logReturns].sort((a, b) => a - b)
  const median = sorted.length ? sorted[sorted.length >> 1]! : 0
  const deviations = sorted.map((r) => Math.abs(r - median)).sort((a, b) => a - b)
  const sigma = deviations.length ? 1.4826 * deviations[deviations.length >> 1]! : 0
  let outliers = 0
  let largestReturn: number | null = null
  let firstOutlier = -1
  if (sigma > 0) {
    for (let k = 0; k < logReturns.length; k++) {
      if (Math.abs(logReturns[k]! - median) > OUTLIER_SIGMAS * sigma) {
        outliers++
        const pct = (Math.exp(logReturns[k]!) - 1) * 100
        if (largestReturn === null || Math.abs(pct) > Math.abs(largestReturn)) largestReturn = pct
        if (firstOutlier < 0) firstOutlier = k + 1
      }
    }
  }
  if (firstOutlier >= 0) firstIssue.push({ i: firstOutlier, kind: 'outlier' })

  const first = firstIssue.sort((x, y) => x.i - y.i)[0] ?? null
  const zones = read?.zones ?? []
  return {
    timeframe: timeframeOf(step),
    timestamps: {
      format: read?.format ?? 'generated',
      zone: zones.length === 0 || (zones.length === 1 && zones[0] === 'UTC') ? 'UTC' : zones.length === 1 ? zones[0]! : `mixed: ${zones.slice(0, 6).join(', ')}`,
      normalised_to: 'UTC',
    },
    gaps: {
      count: gaps,
      largest_s: gaps ? largest / 1000 : null,
      first: firstGap,
      rule: `a spacing longer than the ${timeframeOf(step)} timeframe that the bars' calendar does not explain (${weekdaysOnly ? 'weekdays only' : 'every day of the week'}` +
        `${intraday ? `; sessions usually ${timeOfDay(sessionStart)}–${timeOfDay(sessionEnd)} UTC` : ''}); a single missing weekday in weekday-only data is a closed day, not a gap`,
    },
    closed_days: closedDays,
    zero_volume: { count: zero, first: firstZero >= 0 ? at(firstZero) : null, volume: hasVolume ? 'present' : 'absent' },
    stale: { count: stale, longest, first: firstStale >= 0 ? at(firstStale) : null, rule: `${STALE_RUN_BARS} or more consecutive bars with the same close` },
    outliers: {
      count: outliers,
      largest_abs_return_pct: largestReturn,
      first: firstOutlier >= 0 ? at(firstOutlier) : null,
      rule: `a bar's log return more than ${OUTLIER_SIGMAS} robust standard deviations (1.4826 × median absolute deviation) from the median${sigma > 0 ? '' : '; not checked: the median absolute deviation is 0'}`,
    },
    issues: gaps + zero + stale + outliers,
    first_issue: first ? { kind: first.kind, line: lineOf(first.i), time: iso(ts[first.i]!) } : null,
  }
}

const timeOfDay = (ms: number): string => new Date(ms).toISOString().slice(11, 16)
