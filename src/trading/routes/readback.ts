// /api/v11 read-back: datasets (paged, one with its bars, delete), runs (paged, one by id), the paper ledger's lists.
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { TradingContext } from '../context.js'
import { TAGS } from '../context.js'
import { createReadback } from '../readback.js'
import {
  accountPage, accountQuery, cyclePage, datasetDeleted, datasetDeleteQuery, datasetDetail, datasetListQuery, datasetPage,
  datasetParams, fillPage, ledgerQuery, orderPage, positionPage, runDetail, runListQuery, runPage, runParams, runQuery,
} from '../readback-schemas.js'
import { problemResponses } from './common.js'
import { writtenAs } from '../../json-writer.js'
import { ownTurn } from '../../store/turns.js'

const PAGING = 'Paged: `limit` (1–500, default 50) and `cursor` (the `next_cursor` of the previous page); `next_cursor` is null on the last page. ' +
  'Pages are keyset positions, so rows added while you page never cause duplicates or gaps. A bad cursor is refused with 400, a limit over 500 with 422.'

export default async function readbackRoutes(parent: FastifyInstance, ctx: TradingContext) {
  const app = parent.withTypeProvider<ZodTypeProvider>()
  const read = createReadback(ctx.service)
  const tags = [TAGS.v11]

  app.get('/datasets', {
    schema: {
      tags, summary: 'Datasets with their metadata (symbol, timeframe, source, rows, range, checksum, seed), oldest first',
      description: PAGING, querystring: datasetListQuery, response: { 200: datasetPage, ...problemResponses },
    },
  }, async (req) => read.datasets(req.query))

  app.get('/datasets/:ref', {
    schema: {
      tags, summary: 'One dataset by id, symbol or symbol@timeframe: its metadata, the rows that refer to it, and a page of its bars (oldest first)',
      description: PAGING, params: datasetParams, querystring: datasetListQuery, response: { 200: datasetDetail, ...problemResponses },
    },
  }, async (req) => {
    // A 500-bar page costs ~1.5 ms of synchronous reads and ~1 ms of JSON: a burst of 30 in one poll of the sockets
    // held the loop 50-70 ms (issue #13). Each read waits for a turn of its own; the answer is written a part per turn.
    await ownTurn()
    return writtenAs(datasetDetail, await read.dataset(req.params.ref, req.query))
  })

  app.delete('/datasets/:ref', {
    schema: {
      tags, summary: 'Delete a dataset and its bars; needs scope trading:write',
      description: 'Refused with 409 while runs or signals refer to the dataset, unless `?cascade=true` (they are deleted with it). ' +
        'A dataset the paper ledger refers to (cycles, orders, fills, positions) is never deleted: the ledger re-derives cash from its fills.',
      params: datasetParams, querystring: datasetDeleteQuery, response: { 200: datasetDeleted, ...problemResponses },
    },
  }, async (req) => read.deleteDataset(req.params.ref, req.query.cascade === 'true' || req.query.cascade === '1'))

  app.get('/runs', {
    schema: {
      tags, summary: 'Stored runs (backtests, simulations, signal searches), newest first; filter by kind, dataset, strategy',
      description: PAGING, querystring: runListQuery, response: { 200: runPage, ...problemResponses },
    },
  }, async (req) => read.runs(req.query))

  app.get('/runs/:id', {
    config: { largeAnswer: true },
    schema: {
      tags, summary: 'One stored run: its inputs, statistics, equity curve (as stored, downsampled) and, on request, its trades',
      description: 'Trades are not stored: `?include=trades` recomputes them from the stored inputs (a backtest in the mill) and says ' +
        'whether the recomputed statistics equal the stored ones. A run stored without an equity curve answers `equity: null` with the reason.',
      params: runParams, querystring: runQuery, response: { 200: runDetail, ...problemResponses },
    },
    // Trades recomputed for a 250k-bar run are thousands of objects: written a part per loop turn.
  }, async (req) => writtenAs(runDetail, await read.run(req.params.id, { withTrades: req.query.include === 'trades', equityPoints: req.query.equity_points })))

  const ledger = [
    ['accounts', 'Paper accounts: currency, initial and current cash', accountQuery, accountPage, read.accounts],
    ['positions', 'Paper positions per account and dataset (signed quantity, average price, realised P&L)', ledgerQuery, positionPage, read.positions],
    ['orders', 'Paper orders, newest first', ledgerQuery, orderPage, read.orders],
    ['fills', 'Paper fills (price, commission, slippage, bar), newest first', ledgerQuery, fillPage, read.fills],
    ['cycles', 'Full cycles (signal → order or no change), newest first', ledgerQuery, cyclePage, read.cycles],
  ] as const
  for (const [name, summary, querystring, answer, handler] of ledger) {
    app.get(`/ledger/${name}`, {
      schema: {
        tags, summary, description: `${PAGING}${querystring === ledgerQuery ? ' Filter by `account` and `dataset`.' : ''}`,
        querystring, response: { 200: answer, ...problemResponses },
      },
    }, async (req) => handler(req.query as never))
  }
}
