// What the platform stored, read back: runs (listed, and one with its inputs, stats, trades and equity), datasets
// (one with a page of bars; deleted), and the paper ledger, each list paged by src/http/paging.ts.
import { pageAnswer, pagedList, type PagedList, type PageQuery, type Position } from '../http/paging.js'
import { Refusal } from '../http/refusal.js'
import { datasetView, resolveDataset } from './datasets.js'
import { INLINE_TRADES_MAX } from '../engines/trading/answer-caps.js'
import type { AccountRow, CycleRow, DatasetRow, FillRow, OrderRow, PositionRow, RunKind, RunRow } from './repository.js'
import type { BarRow, LedgerFilter, RunListRow } from './repository-pages.js'
import type { BacktestBody } from './schemas.js'
import { answerSchema, splicedAnswer } from '../json/serializer.js'
import { ON_LOOP_WORK_MAX_BYTES } from '../json/loop-rule.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { BAR_COLUMNS, barsPage, runMembers, type RunMembersPayload } from '../mill/tasks/trading.js'
import { datasetDetail, runDetail } from './readback-schemas.js'
import type { TradingService } from './service.js'
import { headlineOf } from './system.js'
import { resultsNotStored } from './run-results.js'
import { TRADE_COLUMNS } from '../engines/trading/run-series.js'
import type { ReadableRun } from './run-access.js'


export const LISTS = {
  datasets: pagedList<DatasetRow>('datasets', ['integer'], (d) => [d.id]),
  bars: pagedList<BarRow>('bars', ['integer'], (b) => [b.ts]),
  runs: pagedList<RunListRow>('runs', ['integer'], (r) => [r.id]),
  accounts: pagedList<AccountRow>('accounts', ['string'], (a) => [a.id]),
  positions: pagedList<PositionRow>('positions', ['string', 'integer'], (p) => [p.account_id, p.dataset_id]),
  orders: pagedList<OrderRow>('orders', ['integer'], (o) => [o.id]),
  fills: pagedList<FillRow>('fills', ['integer'], (f) => [f.id]),
  cycles: pagedList<CycleRow>('cycles', ['integer'], (c) => [c.id]),
}

/** A trade's JSON in a run's answer at most: its eleven members, every figure at its longest. */
export const TRADE_JSON_MAX_BYTES = 400
/** The answer's members written from what is stored, by the route's own schemas for them. */
const runMemberSchemas = { trades: answerSchema(runDetail.shape.trades.unwrap()), equity: answerSchema(runDetail.shape.equity.unwrap()) }

export const runHref = (id: number): string => `/api/v11/runs/${id}`

const parseJson = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>

/** `mill` writes a large run's curve and trades, as work of the request that reads it (in its owner's share). */
export function createReadback(service: TradingService, mill: Pick<Mill, 'run'>) {
  const repo = service.repo
  const datasetId = async (ref: string | undefined): Promise<number | null> => (ref === undefined ? null : (await resolveDataset(repo, ref)).id)

  return {
    datasets: async (query: PageQuery) =>
      pageAnswer('datasets', await LISTS.datasets.read(query, (r) => repo.datasetsPage(r.after, r.limit)), datasetView),

    /**
     * One dataset by id, symbol or symbol@timeframe: its metadata, what refers to it, and a page of its bars, written as
     * bytes (in the mill past ON_LOOP_WORK_MAX_BYTES, in `owner`'s share) and spliced in.
     */
    async dataset(ref: string, query: PageQuery, owner: string | null) {
      const dataset = await resolveDataset(repo, ref)
      const { bars, ...page } = pageAnswer('bars', await LISTS.bars.read(query, (r) => repo.barsPage(dataset.id, r.after, r.limit)))
      const answer = { dataset: datasetView(dataset), references: await repo.datasetReferences(dataset.id), ...page, bars: [] }
      return splicedAnswer(datasetDetail, answer, { bars: (await barsPageOf(mill, owner, bars)).bars })
    },

    /**
     * Deletes a dataset and its bars. Runs and signals that refer to it are refused with conflict unless `cascade`;
     * the paper ledger is an accounting record, so a dataset it refers to is never deleted.
     */
    deleteDataset(ref: string, cascade: boolean) {
      return repo.transaction(async (tx) => {
        const dataset = await resolveDataset(tx, ref)
        const refs = await tx.datasetReferences(dataset.id)
        const label = `dataset #${dataset.id} (${dataset.symbol}@${dataset.timeframe})`
        const ledger = refs.cycles + refs.orders + refs.fills + refs.positions
        if (ledger > 0) {
          throw new Refusal('conflict',
            `${label} is in the paper ledger (${refs.cycles} cycles, ${refs.orders} orders, ${refs.fills} fills, ${refs.positions} positions); ` +
            'the ledger re-derives cash and positions from its fills, so it keeps its datasets', { hints: { references: refs } })
        }
        if (refs.runs + refs.signals > 0 && !cascade) {
          throw new Refusal('conflict',
            `${refs.runs} runs and ${refs.signals} signals refer to ${label}; list them with GET /api/v11/runs?dataset=${dataset.id}, ` +
            'or delete them with it: ?cascade=true', { hints: { references: refs } })
        }
        const removed = await tx.deleteDatasetWithRuns(dataset.id)
        return { deleted: datasetView(dataset), removed }
      })
    },

    /** Runs newest first: `owner`'s own (Principal.owner), or every run when null (src/trading/run-access.ts decides). */
    async runs(query: PageQuery & { kind?: RunKind | undefined; dataset?: string | undefined; strategy?: string | undefined }, owner: string | null) {
      const filter = { owner, kind: query.kind ?? null, dataset_id: await datasetId(query.dataset), strategy: query.strategy ?? null }
      return pageAnswer('runs', await LISTS.runs.read(query, (r) => repo.runsPage(filter, r.after, r.limit)), runListItem)
    },

    /**
     * One run: its inputs (the normalised request), stats and stored equity curve (downsampled further to
     * `equityPoints`). `withTrades` adds its first trades as stored, or for a run stored before runs kept them,
     * recomputes them from the stored inputs in the mill and says whether the recomputed statistics equal the stored
     * ones. The curve and trades are written as bytes (in the mill past ON_LOOP_WORK_MAX_BYTES) and spliced in.
     */
    async run(row: ReadableRun, opts: { withTrades: boolean; equityPoints?: number | undefined }, owner: string | null) {
      const dataset = (await repo.datasetById(row.dataset_id))!
      const stats = parseJson(row.stats)
      const earlier = await repo.earlierRunWithDigest(row.inputs_digest, row.id)
      const { block, recomputed, ...trades } = await tradesOf(service, row, dataset, stats, opts.withTrades)
      const written = await runMembersOf(mill, owner, {
        equity: row.equity === null ? null : { text: row.equity, maxPoints: opts.equityPoints ?? null },
        trades: block,
        members: runMemberSchemas,
      })
      const answer = {
        id: row.id,
        kind: row.kind,
        dataset: { id: dataset.id, symbol: dataset.symbol, timeframe: dataset.timeframe, sha256: dataset.sha256 },
        strategy: row.strategy,
        params: parseJson(row.params),
        inputs: parseJson(row.request),
        inputs_digest: row.inputs_digest,
        same_inputs_as_run: earlier,
        stats,
        headline: headlineOf(row.kind, stats),
        ...equityOf(row),
        ...trades,
        elapsed_ms: row.elapsed_ms,
        created_at: row.created_at,
      }
      // The curve and trades come written: the rest is written around them.
      return splicedAnswer(runDetail, answer, { equity: written.equity, trades: recomputed ?? written.trades })
    },

    accounts: async (query: PageQuery) => pageAnswer('accounts', await LISTS.accounts.read(query, (r) => repo.accountsPage(r.after, r.limit))),
    positions: ledgerList('positions', LISTS.positions, repo.positionsPage),
    orders: ledgerList('orders', LISTS.orders, repo.ordersPage),
    fills: ledgerList('fills', LISTS.fills, repo.fillsPage),
    cycles: ledgerList('cycles', LISTS.cycles, repo.cyclesPage),
  }

  /** A ledger list filtered by account and dataset. */
  function ledgerList<K extends string, T>(name: K, list: PagedList<T>, fetch: (filter: LedgerFilter, after: Position | null, limit: number) => Promise<T[]>) {
    return async (query: LedgerQuery) =>
      pageAnswer(name, await list.read(query, async (r) => fetch(await ledgerFilter(query), r.after, r.limit)))
  }

  async function ledgerFilter(query: LedgerQuery): Promise<LedgerFilter> {
    return { account_id: query.account ?? null, dataset_id: await datasetId(query.dataset) }
  }
}

export type LedgerQuery = PageQuery & { account?: string | undefined; dataset?: string | undefined }
export type Readback = ReturnType<typeof createReadback>

function runListItem(row: RunListRow) {
  const stats = parseJson(row.stats)
  return {
    id: row.id,
    kind: row.kind,
    dataset: { id: row.dataset_id, symbol: row.symbol, timeframe: row.timeframe },
    strategy: row.strategy,
    params: parseJson(row.params),
    headline: headlineOf(row.kind, stats),
    inputs_digest: row.inputs_digest,
    equity_stored: Number(row.equity_stored) === 1,
    elapsed_ms: row.elapsed_ms,
    created_at: row.created_at,
    href: runHref(row.id),
  }
}

/**
 * The run's curve and trades written on the loop when small (ON_LOOP_WORK_MAX_BYTES, bounded from what is stored: the
 * curve's text, TRADE_JSON_MAX_BYTES a trade; a stored curve of STORED_EQUITY_POINTS is about 21 KB, so a run read
 * without its trades never waits on the mill), else in the mill by the route's own schemas, only their bytes back.
 */
async function runMembersOf(mill: Pick<Mill, 'run'>, owner: string | null, payload: RunMembersPayload) {
  const bytes = (payload.equity?.text.length ?? 0) + ((payload.trades?.length ?? 0) / TRADE_COLUMNS.length) * TRADE_JSON_MAX_BYTES
  if (bytes <= ON_LOOP_WORK_MAX_BYTES) return runMembers(payload)
  return mill.run('trading.runMembers', payload, {
    timeoutMs: budgetOf(undefined), op: 'trading.runs.get', owner, ...(payload.trades ? { transfer: [payload.trades.buffer as ArrayBuffer] } : {}),
  })
}

/** A bar's JSON in a dataset's page at most: its seven members, every figure at its longest. */
const BAR_JSON_MAX_BYTES = 250
const barsSchema = answerSchema(datasetDetail.shape.bars)

/** A page of bars written on the loop when small (ON_LOOP_WORK_MAX_BYTES), else in the mill by the route's own schema. */
async function barsPageOf(mill: Pick<Mill, 'run'>, owner: string | null, rows: readonly BarRow[]) {
  const block = new Float64Array(rows.length * BAR_COLUMNS.length)
  rows.forEach((b, i) => block.set([b.ts, b.open, b.high, b.low, b.close, b.volume], i * BAR_COLUMNS.length))
  const payload = { block, bars: barsSchema }
  if (rows.length * BAR_JSON_MAX_BYTES <= ON_LOOP_WORK_MAX_BYTES) return barsPage(payload)
  return mill.run('trading.barsPage', payload, { timeoutMs: budgetOf(undefined), op: 'trading.datasets.get', owner, transfer: [block.buffer] })
}

/** The curve's note; the curve itself is written from the stored text (runMembers). */
function equityOf(row: RunRow) {
  if (row.equity === null) {
    const reason = row.kind === 'backtest'
      ? 'this backtest was stored without its equity curve (before every backtest kept one; ' +
        'POST /api/v11/trading/backtest with these inputs computes it)'
      : `a ${row.kind} run has no equity curve (only backtests keep one)`
    return { equity: null, equity_note: reason }
  }
  return {
    equity: null,
    equity_note: `stored downsampled (each bucket keeps its low and its high); every bar: GET /api/v11/runs/${row.id}/equity (Accept: text/csv for the whole curve)`,
  }
}

/**
 * The run's trades note, and the trades it shows: the first stored ones as a trade block (written by runMembers), or
 * trades recomputed in the mill, written there.
 */
async function tradesOf(service: TradingService, row: ReadableRun, dataset: DatasetRow, stats: Record<string, unknown>, wanted: boolean): Promise<{
  trades: null; trades_note: string; trades_verified?: boolean; block: Float64Array | null; recomputed: Uint8Array | null
}> {
  const none = { trades: null, block: null, recomputed: null }
  if (row.kind !== 'backtest') return { ...none, trades_note: `a ${row.kind} run has no trade list` }
  const links = `pages of them: GET /api/v11/runs/${row.id}/trades (Accept: text/csv for all of them)`
  // Reads of results see none until they are whole (repository-runs.ts): an unfinished run is one without them.
  const kept = await service.repo.runTradeCount(row.id)
  const missing = resultsNotStored(row)
  if (!wanted) {
    return { ...none, trades_note: missing ? `${missing.note}; ?include=trades recomputes them from its inputs`
      : kept > 0 || (await service.repo.runEquityChunks(row.id, 0, 1)).length > 0
        ? `${kept} trades are stored with the run: ?include=trades inlines the first ${INLINE_TRADES_MAX}; ${links}`
        : 'this run was stored before runs kept their trades; ?include=trades recomputes them from its inputs' }
  }
  if (kept > 0 || (await service.repo.runEquityChunks(row.id, 0, 1)).length > 0) {
    const block = await service.repo.runTradeBlock(row.id, Math.min(kept, INLINE_TRADES_MAX))
    const count = block.length / TRADE_COLUMNS.length
    const shown = count < kept ? `the first ${count} of ${kept} trades stored with the run` : 'stored with the run'
    return { ...none, block, trades_note: `${shown}; ${links}`, trades_verified: true }
  }
  const { include: _include, equity_points: _points, ...request } = JSON.parse(row.request) as BacktestBody
  // Pinned to the run's dataset by id: its symbol might name another dataset by now.
  const answer = await service.recomputeBacktest({ ...request, dataset: dataset.id, include: ['trades'] })
  const same = JSON.stringify(answer.stats) === JSON.stringify(stats)
  const total = answer.trades_total ?? 0
  const first = total > INLINE_TRADES_MAX ? `the first ${INLINE_TRADES_MAX} of ${total} trades ` : ''
  return {
    ...none,
    recomputed: answer.trades,
    trades_note: same
      ? `${first}recomputed now from the stored inputs; the recomputed statistics equal the stored ones`
      : `${first}recomputed now from the stored inputs, but the statistics differ from the stored ones (the engine changed since): these trades belong to the recomputed statistics`,
    trades_verified: same,
  }
}
