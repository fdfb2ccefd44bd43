// Replaying a stored run: its stored request run again on the same dataset, nothing stored, and every statistic
// compared with the stored one; a different engine version or fingerprint is named, not hidden.
import { ENGINE_VERSION } from '../engines/trading/index.js'
import { Refusal } from '../http/refusal.js'
import { fingerprintOf } from './runs.js'
import type { RunRow } from './rows.js'
import type { RunFields } from './runs.js'
import type { TradingService } from './service.js'
import type { BacktestBody, MaxEdgeBody, MaxEdgeV10Body, SimulateBody } from './schemas.js'

export interface StatDifference {
  path: string
  stored: unknown
  now: unknown
}

/** Leaves of two JSON values that differ, by path (`oos_stats.sharpe_ratio`); a member on one side only differs too. */
export function differences(stored: unknown, now: unknown, path = '', out: StatDifference[] = []): StatDifference[] {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object'
  if (isObject(stored) && isObject(now) && Array.isArray(stored) === Array.isArray(now)) {
    for (const key of new Set([...Object.keys(stored), ...Object.keys(now)])) {
      differences(stored[key], now[key], path ? `${path}.${key}` : key, out)
    }
    return out
  }
  if (!Object.is(stored, now)) out.push({ path: path || '(value)', stored: stored ?? null, now: now ?? null })
  return out
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null))

/** A stored run computed again from its stored request (in the mill, nothing stored): what it would store now. */
export async function runAgain(service: TradingService, row: RunRow): Promise<RunFields> {
  let again: RunFields | null = null
  let kindAgain: string | null = null
  const research = service.replaying((kind, fields) => {
    kindAgain = kind
    again = fields
  })
  // Pinned to the run's dataset by id: its symbol might name another dataset by now.
  const request = { ...(JSON.parse(row.request) as Record<string, unknown>), dataset: row.dataset_id }
  switch (row.kind) {
    case 'backtest': await research.backtest({ ...(request as BacktestBody), include: [] }); break
    case 'simulate': await research.simulate(request as SimulateBody); break
    case 'max_edge': await research.maxEdgeSignal(request as MaxEdgeBody, { kind: 'max_edge', recordSignal: false }); break
    case 'full_cycle_search': await research.maxEdgeSignal(request as MaxEdgeBody, { kind: 'full_cycle_search', recordSignal: false }); break
    case 'max_edge_v10': await research.maxEdgeSignalV10(request as MaxEdgeV10Body); break
  }
  if (kindAgain !== row.kind || again === null) throw new Refusal('internal', `running run ${row.id} (${row.kind}) again recorded a ${kindAgain ?? 'nothing'}`)
  return again
}

/** Whether statistics computed again are the stored ones, leaf by leaf (as JSON stores them). */
export const sameStats = (stored: string, now: unknown): boolean => differences(JSON.parse(stored) as unknown, json(now)).length === 0

export async function replayRun(service: TradingService, row: RunRow) {
  const again = await runAgain(service, row)
  const replayed = json(again.stats)
  const inputs = again.inputs
  const dataset = await service.repo.datasetById(row.dataset_id)
  const stored = JSON.parse(row.stats) as unknown
  const diff = differences(stored, replayed)
  const fingerprintNow = dataset ? fingerprintOf(row.kind, dataset.sha256, inputs) : null
  return {
    run_id: row.id,
    kind: row.kind,
    identical: diff.length === 0,
    compared: countLeaves(stored),
    differences: diff,
    engine_version: {
      stored: row.engine_version,
      now: ENGINE_VERSION,
      same: row.engine_version === ENGINE_VERSION,
      note: row.engine_version === null
        ? 'the run was stored before runs named their engine version'
        : row.engine_version === ENGINE_VERSION ? 'the engine that stored the run answered again' : `the run was stored by engine ${row.engine_version}; this is ${ENGINE_VERSION}`,
    },
    fingerprint: { stored: row.fingerprint, now: fingerprintNow, same: row.fingerprint !== null && row.fingerprint === fingerprintNow },
    stats: replayed,
  }
}

function countLeaves(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1
  return Object.values(value).reduce<number>((n, v) => n + countLeaves(v), 0)
}
