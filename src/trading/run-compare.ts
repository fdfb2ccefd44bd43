// Runs side by side: each one's inputs and statistics, and the paths where they differ with every run's value.
import { Refusal } from '../http/refusal.js'
import { differences } from './run-replay.js'
import { runFor, type RunCaller } from './run-access.js'
import type { TradingRepository } from './repository.js'

/** Runs compared at most in one request. */
export const COMPARE_MAX_RUNS = 10

export function parseRunIds(text: string): number[] {
  const ids = text.split(',').map((part) => part.trim())
  const bad = ids.find((id) => !/^[1-9][0-9]{0,15}$/.test(id) || !Number.isSafeInteger(Number(id)))
  if (bad !== undefined) {
    throw new Refusal('invalid_input', `ids: ${JSON.stringify(bad.slice(0, 40))} is not a run id; send ?ids=12,15`, { issues: [{ path: 'ids', message: 'comma-separated run ids' }] })
  }
  const unique = [...new Set(ids.map(Number))]
  if (unique.length < 2) throw new Refusal('invalid_input', 'compare needs at least two distinct run ids', { issues: [{ path: 'ids', message: 'at least two ids' }] })
  if (unique.length > COMPARE_MAX_RUNS) {
    throw new Refusal('over_limit', `${unique.length} runs; compare takes at most ${COMPARE_MAX_RUNS}`, {
      hints: { limit: { name: 'compare_runs', value: COMPARE_MAX_RUNS, requested: unique.length } },
    })
  }
  return unique
}

/** Paths (of inputs or statistics) where at least two runs differ, with every run's value in the order asked. */
function differing(values: readonly unknown[]): Array<{ path: string; values: unknown[] }> {
  const paths = new Set<string>()
  for (let k = 1; k < values.length; k++) for (const d of differences(values[0], values[k])) paths.add(d.path)
  return [...paths].sort().map((path) => ({ path, values: values.map((v) => at(v, path)) }))
}

function at(value: unknown, path: string): unknown {
  let here = value
  for (const key of path.split('.')) {
    if (here === null || typeof here !== 'object') return null
    here = (here as Record<string, unknown>)[key]
  }
  return here ?? null
}

export async function compareRuns(call: RunCaller, ids: readonly number[]) {
  const repo = call.service.repo
  const rows = []
  // Every run must be one the caller may read: a stranger's id is refused as an unknown one.
  for (const id of ids) rows.push(await runFor(call, id))
  const runs = await Promise.all(rows.map(async (row) => {
    const dataset = await repo.datasetById(row.dataset_id)
    return {
      id: row.id,
      kind: row.kind,
      dataset: { id: row.dataset_id, symbol: dataset?.symbol ?? null, timeframe: dataset?.timeframe ?? null, sha256: dataset?.sha256 ?? null },
      strategy: row.strategy,
      params: JSON.parse(row.params) as Record<string, unknown>,
      inputs: JSON.parse(row.request) as Record<string, unknown>,
      stats: JSON.parse(row.stats) as Record<string, unknown>,
      fingerprint: row.fingerprint,
      engine_version: row.engine_version,
      created_at: row.created_at,
      href: `/api/v11/runs/${row.id}`,
    }
  }))
  return {
    ids: [...ids],
    runs,
    differences: {
      dataset: differing(runs.map((r) => r.dataset)),
      inputs: differing(runs.map((r) => r.inputs)),
      stats: differing(runs.map((r) => r.stats)),
    },
    same_fingerprint: runs.every((r) => r.fingerprint !== null && r.fingerprint === runs[0]!.fingerprint),
  }
}
