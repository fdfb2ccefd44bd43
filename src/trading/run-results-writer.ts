// A run's results (a backtest's trades and curve chunks, a search's trials) written after its row, a batch per loop
// turn, under a claim: readers see none of them until the completion marker (the claim cleared) is written last. A
// claim is renewed before every batch and lapses after its lease; a lapsed claim is taken over (run-results-sweep.ts,
// or a repeat of the run), its partial rows deleted and written again. Two writers of one run write identical rows (its
// results are a function of its inputs), so a row already there is kept, and only the claim's holder marks them whole.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../sched/clock.js'
import { tradeRows } from '../engines/trading/run-series.js'
import { inTurns } from '../sched/turns.js'
import type { RunResultsState } from './repository-runs.js'
import type { TradingRepository } from './repository.js'
import type { RunResults, TrialRow } from './rows.js'

/** Rows per INSERT: 12 parameters a trade stays far below every backend's parameter limit. */
const TRADE_BATCH = 500
const TRIAL_BATCH = 200
/** Curve chunks per INSERT (each ~44 KB of text). */
const CHUNK_BATCH = 8

/** What a run keeps beside its row. */
export interface RunResultsToWrite {
  results: RunResults | null
  trials: readonly TrialRow[] | null
}

export const hasResults = (r: RunResultsToWrite): boolean => r.results !== null || (r.trials?.length ?? 0) > 0

/** A new claim: who is writing a run's results (unique per write). */
export const newResultsWriter = (): string => randomUUID()

/** How a run's results stand for a writer arriving with them at `now`. */
export function resultsStanding(state: RunResultsState, now: number, leaseMs: number): 'whole' | 'missing' | 'writing' | 'abandoned' {
  if (state.writer === null) return state.hasRows ? 'whole' : 'missing'
  return state.claimedAt !== null && state.claimedAt >= now - leaseMs ? 'writing' : 'abandoned'
}

/**
 * Writes the results of a run claimed for `writer` (the claim was taken in the transaction that stored or found the
 * run), then marks them whole. The claim is renewed before the first batch and then whenever a quarter of `leaseMs`
 * has passed, so it never lapses while the writer lives. Stops quietly when the claim is lost (taken over after the
 * lease, the run deleted); a writer that fails hands its claim over at once and throws.
 */
export async function writeRunResults(
  repo: TradingRepository, clock: Clock, runId: number, writer: string, what: RunResultsToWrite, leaseMs: number,
): Promise<void> {
  const batches: Array<() => Promise<void>> = []
  if (what.results) {
    const rows = tradeRows(what.results.trades)
    for (let from = 0; from < rows.length; from += TRADE_BATCH) batches.push(() => repo.insertTradeBatch(runId, from, rows.slice(from, from + TRADE_BATCH)))
    const { equity } = what.results
    for (let from = 0; from < equity.length; from += CHUNK_BATCH) batches.push(() => repo.insertEquityBatch(runId, equity.slice(from, from + CHUNK_BATCH)))
  }
  const trials = what.trials ?? []
  for (let from = 0; from < trials.length; from += TRIAL_BATCH) batches.push(() => repo.insertTrialBatch(runId, from, trials.slice(from, from + TRIAL_BATCH)))
  let renewed = -Infinity
  try {
    // On SQLite every statement is synchronous: one transaction of them all held the loop for a 250k-bar curve.
    for await (const batch of inTurns(batches)) {
      // Between renewals a writer taken over may still write a batch: the same rows, kept as they are.
      if (clock.now() - renewed >= leaseMs / 4) {
        if (!(await repo.renewRunResults(runId, writer, clock.now()))) return
        renewed = clock.now()
      }
      await batch()
    }
    await repo.finishRunResults(runId, writer)
  } catch (err) {
    // Deleted meanwhile (the rows' run is gone) or taken over: nothing of this writer's is wanted any more.
    if (!(await stillClaimed(repo, runId, writer))) return
    await repo.abandonRunResults(runId, writer).catch(() => undefined)
    throw err
  }
}

async function stillClaimed(repo: TradingRepository, runId: number, writer: string): Promise<boolean> {
  try {
    return (await repo.runById(runId))?.results_writer === writer
  } catch {
    return true
  }
}
