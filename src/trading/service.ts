// The research side of the platform as one object for the routes, the cycle runner and the MCP tools: each job is a
// function of (deps, body) in research/, given one repository, one bars cache and one runs recorder.
import type { Clock } from '../sched/clock.js'
import { MAX_TIMEOUT_MS, type Mill } from '../mill/pool.js'
import { movable } from '../mill/moving.js'
import type { Admission } from '../plugins/admission.js'
import { INTERNAL_PRINCIPAL, type Principal } from '../access/policy.js'
import type { Store } from '../store/index.js'
import type { Bars } from '../engines/trading/types.js'
import type { CsvOptions } from '../engines/trading/index.js'
import type { TradeBandsPayload } from '../mill/tasks/trading.js'
import { createBarsCache } from './bars-cache.js'
import { resolveDataset } from './datasets.js'
import { createTradingRepository, type DatasetRow, type TradingRepository } from './repository.js'
import { backtest, recomputeBacktest } from './research/backtest.js'
import { checkingDeps } from './research/check.js'
import { createHeavyRunner, createSplitRunner, type ResearchDeps } from './research/deps.js'
import { strategyParamsOf } from './research/inputs.js'
import { maxEdgeSignal, maxEdgeSignalV10 } from './research/search.js'
import { simulate } from './research/simulate.js'
import { createRunRecorder, type RunFields, type RunRecorder, type RunRetention } from './runs.js'
import type { RunKind } from './rows.js'
import type { BacktestBody, MaxEdgeBody, MaxEdgeV10Body, SimulateBody } from './schemas.js'

export interface ServiceDeps {
  store: Store
  mill: Mill
  admission: Admission
  clock: Clock
  /** Bytes of bars kept in memory (BARS_CACHE_BYTES); default 256 MiB. */
  barsCacheBytes?: number
  /** Stored runs kept; default: no limit. */
  runRetention?: RunRetention
  /** How long a run's results writer holds its claim unrenewed (RUN_RESULTS_LEASE_MS). */
  runResultsLeaseMs?: number
}

export type TradingService = ReturnType<typeof createTradingService>

export function createTradingService({ store, mill, admission, clock, barsCacheBytes = 256 * 2 ** 20, runRetention, runResultsLeaseMs }: ServiceDeps) {
  const repo = createTradingRepository(store.sql)
  const recorders = createRunRecorder(repo, clock, { ...(runRetention ? { retention: runRetention } : {}), ...(runResultsLeaseMs ? { resultsLeaseMs: runResultsLeaseMs } : {}) })
  const deps: ResearchDeps = {
    repo,
    bars: createBarsCache(repo, barsCacheBytes),
    runs: storesNothing,
    // Research runs as jobs (their submission was authorized) and as the writes that carry it (an import's parse, the
    // full cycle's search, authorized as dataset.write and ledger.write): the host's own heavy work.
    heavy: createHeavyRunner(mill, admission, INTERNAL_PRINCIPAL),
    heavySplit: createSplitRunner(mill, admission, INTERNAL_PRINCIPAL),
    clock,
  }
  return {
    repo,
    dataset: (ref: number | string): Promise<DatasetRow> => resolveDataset(repo, ref),
    strategyParams: strategyParamsOf,
    /**
     * Parses an imported CSV in the mill (heavy: admitted like the research operations). Its work is bounded by the body
     * limit and CSV_MAX_ROWS, so its deadline is the longest a request has: the largest file accepted must not time out
     * on a busy host under the 10 s default. A text/csv body's bytes move there (not copied) and are decoded there; the
     * JSON form's string is cloned.
     */
    parseCsv: async (csv: string | Uint8Array[], options: CsvOptions) => {
      const bytes = typeof csv === 'string' ? null : movable(csv)
      return (await deps.heavy('trading.datasets.import', 'trading.csv', { csv: bytes?.views ?? csv, ...options }, MAX_TIMEOUT_MS, bytes?.transfer)).result
    },
    /** Monte Carlo bands of a run's trades, in the mill: heavy work of the principal that asks. */
    tradeBands: async (payload: TradeBandsPayload, timeoutMs: number | undefined, principal: Principal) =>
      (await createHeavyRunner(mill, admission, principal)('trading.runs.monte-carlo', 'trading.tradeBands', payload, timeoutMs)).result,
    /** A dataset's bars (immutable once stored, so served from a bounded cache). */
    bars: (dataset: DatasetRow): Promise<Bars> => deps.bars.get(dataset, null),
    /** The research operations, their runs stored as `owner`'s (Principal.owner: the job's or the request's principal). */
    researchAs: (owner: string) => research({ ...deps, runs: recorders.for(owner) }),
    /** How long a run's results writer holds its claim unrenewed. */
    runResultsLeaseMs: recorders.leaseMs,
    /** Recomputes without storing a run (a stored run's trades are read back this way). */
    recomputeBacktest: (body: BacktestBody) => recomputeBacktest(deps, body),
    /** The same operations stopped where their heavy work would start: their input checks alone (see research/check.ts). */
    inputCheck: research(checkingDeps(deps)),
    /**
     * The same operations run again without storing anything: `stats` gets what each would have stored as the run's
     * statistics (a replay compares them with the stored ones).
     */
    replaying: (record: ReplayRecord) => research(replayingDeps(deps, record)),
  }
}

/** The recorder of deps that never reach a store (input checks stop before; a replay's hands the statistics over). */
const storesNothing: RunRecorder = {
  record: async () => {
    throw new Error('these research deps store no run: call researchAs(owner)')
  },
}

/** What a replay is handed instead of a stored run: the run's kind and what it would have stored (statistics, inputs, results). */
export type ReplayRecord = (kind: RunKind, fields: RunFields) => void

function replayingDeps(deps: ResearchDeps, record: ReplayRecord): ResearchDeps {
  return {
    ...deps,
    repo: { ...deps.repo, insertSignal: async () => 0 },
    runs: {
      record: async (kind, _dataset, fields) => {
        record(kind, fields)
        return { id: 0, inputs_digest: '', fingerprint: '', same_inputs_as_run: null, created_at: '', elapsed_ms: fields.elapsedMs, stored: false }
      },
    },
  }
}

/** The research operations on a given set of deps. */
function research(deps: ResearchDeps) {
  return {
    backtest: (body: BacktestBody) => backtest(deps, body),
    simulate: (body: SimulateBody) => simulate(deps, body),
    maxEdgeSignal: (body: MaxEdgeBody, as?: Parameters<typeof maxEdgeSignal>[2]) => maxEdgeSignal(deps, body, as),
    maxEdgeSignalV10: (body: MaxEdgeV10Body) => maxEdgeSignalV10(deps, body),
  }
}

export type { TradingRepository }
