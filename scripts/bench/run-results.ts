// bench:run-results — what writing a run's results whole costs, in one run with interleaved rounds and medians:
//  1. writing a 100k-bar backtest's trades and curve chunks: under a claim (renewed each quarter lease), rows kept on
//     conflict, completion marker last (writeRunResults) against the same batches as plain INSERTs (the baseline: how
//     results were written before they had to be whole), loop turns between batches in both;
//  2. reading them: a page of trades and the whole CSV walk (guarded by the completion marker, a join on runs) against
//     the same statements without the join.
// SQLite in memory; the ratio is what matters on a shared machine (wall time of both in the same rounds).
import { loadavg } from 'node:os'
import { openStore } from '../../src/store/index.js'
import { generateSyntheticBars, runBacktest, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { equityChunks, monthlyReturns, tradeBlock, tradeRows, TRADE_COLUMNS } from '../../src/engines/trading/run-series.js'
import { createTradingRepository } from '../../src/trading/repository.js'
import { writeRunResults } from '../../src/trading/run-results-writer.js'
import { nextTurn } from '../../src/sched/turns.js'
import { barsSha256 } from '../../src/trading/checksum.js'
import { median } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 7))
const fmt = (x: number, d = 2) => x.toFixed(d)

console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared 2-core); ${ROUNDS} rounds, medians`)

const { spec, symbol, timeframe } = SYNTHETIC_PRESETS.intraday100k
const bars = generateSyntheticBars(spec)
const { trades, equity } = runBacktest(bars, 'sma_cross', { fast: 2, slow: 3 }, { cash: 10_000, commission: 0.0002 })
const results = { trades: tradeBlock(trades), equity: equityChunks(bars.ts, equity), monthly: monthlyReturns(bars.ts, equity) }
const rows = tradeRows(results.trades)
console.log(`results: ${rows.length} trades, ${results.equity.length} curve chunks of ${bars.ts.length} points`)

const store = await openStore({ path: ':memory:' })
const repo = createTradingRepository(store.sql)
const clock = { now: () => Date.now() }
const dataset = await repo.insertDataset({
  symbol, timeframe, source: 'synthetic', sha256: barsSha256(bars), seed: spec.seed, generator: null, origin: 'bench', created_at: new Date().toISOString(),
}, bars)

let next = 0
async function newRun(writer: string | null): Promise<number> {
  return repo.insertRun({
    kind: 'backtest', dataset_id: dataset.id, strategy: 'sma_cross', params: '{}', request: '{}', inputs_digest: String(next++).padStart(64, '0'),
    stats: '{}', equity: null, elapsed_ms: 0, created_at: new Date().toISOString(), fingerprint: null, engine_version: null, summary: null,
    results_writer: writer, results_claimed_at: writer === null ? null : clock.now(),
  })
}

/** The baseline: the same batches as plain INSERTs with a loop turn between (as results were written before). */
async function plainWrite(runId: number): Promise<void> {
  for (let from = 0; from < rows.length; from += 500) {
    const batch = rows.slice(from, from + 500)
    await store.sql.run(`INSERT INTO run_trades (run_id, seq, ${TRADE_COLUMNS.join(', ')}) VALUES ${batch.map(() => `(?, ?, ${TRADE_COLUMNS.map(() => '?').join(', ')})`).join(', ')}`,
      batch.flatMap((row, k) => [runId, from + k + 1, ...row]))
    await nextTurn()
  }
  for (let from = 0; from < results.equity.length; from += 8) {
    const batch = results.equity.slice(from, from + 8)
    await store.sql.run(`INSERT INTO run_equity (run_id, chunk, points, peak_before, data) VALUES ${batch.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      batch.flatMap((c) => [runId, c.chunk, c.points, c.peakBefore, c.data]))
    await nextTurn()
  }
}

const time = async (f: () => Promise<unknown>) => {
  const t = performance.now()
  await f()
  return performance.now() - t
}

const write = { claimed: [] as number[], plain: [] as number[] }
const read = { guardedPage: [] as number[], plainPage: [] as number[], guardedAll: [] as number[], plainAll: [] as number[] }
let whole = 0
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? ['claimed', 'plain'] as const : ['plain', 'claimed'] as const
  for (const way of order) {
    if (way === 'claimed') {
      const id = await newRun('bench-writer')
      write.claimed.push(await time(() => writeRunResults(repo, clock, id, 'bench-writer', { results, trials: null }, 60_000)))
      whole = id
    } else {
      const id = await newRun(null)
      write.plain.push(await time(() => plainWrite(id)))
    }
  }
  // Reads of one whole run: a page of 100 trades mid-way, and every trade a 1000-row step at a time (the CSV walk).
  const plainPage = (after: number) => store.sql.all(`SELECT seq, ${TRADE_COLUMNS.join(', ')} FROM run_trades WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [whole, after, 100])
  const walk = async (page: (after: number, limit: number) => Promise<Array<{ seq: number }>>) => {
    for (let after = 0; ;) {
      const got = await page(after, 1000)
      if (got.length === 0) return
      after = Number(got[got.length - 1]!.seq)
    }
  }
  const reps = 200
  read.guardedPage.push(await time(async () => { for (let i = 0; i < reps; i++) await repo.runTradesPage(whole, rows.length / 2, 100) }) / reps)
  read.plainPage.push(await time(async () => { for (let i = 0; i < reps; i++) await plainPage(rows.length / 2) }) / reps)
  read.guardedAll.push(await time(() => walk((after, limit) => repo.runTradesPage(whole, after, limit))))
  read.plainAll.push(await time(() => walk((after, limit) => store.sql.all(`SELECT seq, ${TRADE_COLUMNS.join(', ')} FROM run_trades WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [whole, after, limit]))))
}

const m = (xs: number[]) => median(xs)
console.log(`write results whole (under a claim, marker last): ${fmt(m(write.claimed), 1)} ms; plain batches: ${fmt(m(write.plain), 1)} ms; ratio ${fmt(m(write.claimed) / m(write.plain))}`)
console.log(`read a page of 100 trades, guarded: ${fmt(m(read.guardedPage) * 1000, 0)} µs; plain: ${fmt(m(read.plainPage) * 1000, 0)} µs; ratio ${fmt(m(read.guardedPage) / m(read.plainPage))}`)
console.log(`read every trade (CSV walk), guarded: ${fmt(m(read.guardedAll), 1)} ms; plain: ${fmt(m(read.plainAll), 1)} ms; ratio ${fmt(m(read.guardedAll) / m(read.plainAll))}`)
await store.close()
