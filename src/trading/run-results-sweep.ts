// Runs whose results writer died (a crash between a run's row and its completion marker) get their results written
// again: a sweep, at start and then every lease, takes each lapsed claim over, deletes the partial rows, computes the
// run again from its stored request (in the mill, like a replay) and writes its results whole, but only if the
// statistics computed again are the stored ones. Readers see no results meanwhile (repository-runs.ts).
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../sched/clock.js'
import { Refusal } from '../http/refusal.js'
import { inTurns } from '../sched/turns.js'
import { newResultsWriter, writeRunResults } from './run-results-writer.js'
import { runAgain, sameStats } from './run-replay.js'
import type { TradingService } from './service.js'

/** Lapsed claims taken over per pass (the next pass, a lease later, takes the rest). */
const SWEEP_BATCH = 16

export interface SweepOutcome {
  /** Runs whose results were written again, whole. */
  rewritten: number[]
  /** Runs left without results: computed again they differ (another engine), or cannot be computed; a repeat may still write them. */
  givenUp: number[]
  /** Runs to try again at the next pass (the mill refused the work for now). */
  retry: number[]
}

export async function sweepInterruptedResults(service: TradingService, clock: Clock, log?: FastifyBaseLogger): Promise<SweepOutcome> {
  const { repo } = service
  const leaseMs = service.runResultsLeaseMs
  const out: SweepOutcome = { rewritten: [], givenUp: [], retry: [] }
  for await (const id of inTurns(await repo.abandonedRunResults(clock.now() - leaseMs, SWEEP_BATCH))) {
    const writer = newResultsWriter()
    const now = clock.now()
    if (!(await repo.transaction((tx) => tx.reclaimRunResults(id, writer, now - leaseMs, now)))) continue
    // Computing a search again may take longer than the lease: the claim is renewed meanwhile.
    const renew = setInterval(() => void repo.renewRunResults(id, writer, clock.now()).catch(() => undefined), Math.max(250, leaseMs / 3))
    renew.unref()
    try {
      const row = await repo.runById(id)
      if (!row) continue
      const again = await runAgain(service, row)
      clearInterval(renew)
      if (!sameStats(row.stats, again.stats)) {
        log?.warn({ run: id, engine: row.engine_version }, 'the results of an interrupted run were not written again: computed again, its statistics differ')
        await repo.abandonRunResults(id, writer, 'repeat')
        out.givenUp.push(id)
        continue
      }
      await writeRunResults(repo, clock, id, writer, { results: again.results ?? null, trials: again.trials ?? null }, leaseMs)
      out.rewritten.push(id)
    } catch (err) {
      const later = err instanceof Refusal && (err.code === 'occupied' || err.code === 'timeout')
      log?.warn({ err, run: id }, later ? 'writing an interrupted run\'s results again waits for the next sweep' : 'an interrupted run\'s results could not be written again')
      await repo.abandonRunResults(id, writer, later ? 'retry' : 'repeat').catch(() => undefined)
      ;(later ? out.retry : out.givenUp).push(id)
    } finally {
      clearInterval(renew)
    }
  }
  return out
}
