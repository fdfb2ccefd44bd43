// The job-duration histogram and the recent runs behind a queue-full Retry-After.

/** Upper bounds (ms) of the job-duration histogram. */
export const DURATION_BUCKETS_MS = [100, 500, 1000, 5000, 15_000, 60_000, 300_000, 1_800_000]

export interface DurationHistogram {
  record(ms: number): void
  snapshot(): { count: number; sum: number; buckets: Array<{ le: number; count: number }> }
  /** Seconds a new job would wait behind `waiting` jobs, from the last 20 runs (1 s each when none ran yet). */
  retryAfterS(waiting: number, concurrency: number): number
}

export function createDurationHistogram(): DurationHistogram {
  const durations = { count: 0, sum: 0, buckets: DURATION_BUCKETS_MS.map((le) => ({ le, count: 0 })) }
  let recentMs: number[] = []
  return {
    record(ms) {
      durations.count++
      durations.sum += ms
      for (const bucket of durations.buckets) if (ms <= bucket.le) bucket.count++
      recentMs = [...recentMs.slice(-19), ms]
    },
    snapshot: () => ({ count: durations.count, sum: durations.sum, buckets: durations.buckets.map((b) => ({ ...b })) }),
    retryAfterS(waiting, concurrency) {
      const typical = recentMs.length ? recentMs.reduce((a, b) => a + b, 0) / recentMs.length : 1000
      return Math.max(1, Math.ceil((typical * (waiting + 1)) / Math.max(1, concurrency) / 1000))
    },
  }
}
