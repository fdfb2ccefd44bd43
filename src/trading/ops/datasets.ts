// Datasets: import (CSV), list (paged), one with a page of its bars, delete; and v10's list of every dataset.
import { Answer, defineTradingOperation } from '../operation.js'
import { importCsvText } from '../datasets.js'
import { datasetDeleted, datasetDeleteQuery, datasetDetail, datasetListQuery, datasetPage, datasetParams } from '../readback-schemas.js'
import { importAnswer, importBody, importQuery } from '../schemas.js'
import { Refusal } from '../../http/refusal.js'
import { PAGING } from './paging-note.js'
import { IMPORT_EXAMPLES } from '../routes/examples.js'

export const datasetOperations = [
  defineTradingOperation({
    name: 'trading.datasets.import',
    method: 'POST',
    group: 'v11',
    path: '/datasets',
    action: 'dataset.write',
    summary: 'Import OHLCV bars from CSV (all or nothing); needs scope trading:write',
    description: 'Send `text/csv` with `?symbol=&timeframe=`, or JSON `{symbol, timeframe?, csv}`. Header Date,Open,High,Low,Close,Volume ' +
      '(any case; the date column may be unnamed). Rows are validated (strictly increasing time, positive prices, low ≤ open, close ≤ high); ' +
      'a bad row is reported with its line number and nothing is written. Importing the same bars again answers 200 with `created: false`. ' +
      'Exchange kline dumps (no header; open time in epoch ms or µs first, then open, high, low, close, volume — Binance\'s 12 columns) are read as they are; ' +
      'dates may be ISO (with or without offsets, normalised to UTC), epoch seconds or milliseconds (detected, one unit per file, stated). ' +
      'Every dataset carries `quality`: gaps, zero-volume bars, stale runs of identical closes, outlier returns, the inferred timeframe and the ' +
      'timestamps\' format and zone; `?strict=true` (or `strict: true` in JSON) refuses a dataset with any of them, naming the first line.',
    bodyLimit: 'large',
    textBody: 'csv',
    query: importQuery,
    body: importBody,
    output: importAnswer,
    responses: { 201: importAnswer },
    examples: IMPORT_EXAMPLES,
    async handler(input, { store, clock, service, config }) {
      const { symbol, timeframe } = input
      const raw = (input as { strict?: unknown }).strict
      const strict = raw === true || raw === 'true' || raw === '1'
      // The JSON form's string, or a text/csv body's bytes, which only the mill decodes.
      const csv = (input as { csv?: string | Uint8Array[] }).csv ?? ''
      if (!symbol) {
        throw new Refusal('invalid_input', 'symbol is required: ?symbol= with a text/csv body, or "symbol" in a JSON body', {
          issues: [{ path: 'querystring.symbol', message: 'required' }],
        })
      }
      const result = await importCsvText(store.sql, csv, {
        symbol, timeframe, strict, origin: 'http', now: clock.now(), parse: service.parseCsv, maxRows: config.csvMaxRows,
      })
      return new Answer({ id: result.dataset.id, created: result.created, dataset: result.dataset }, result.created ? 201 : 200)
    },
  }),
  defineTradingOperation({
    name: 'trading.datasets.list',
    method: 'GET',
    group: 'v11',
    path: '/datasets',
    summary: 'Datasets with their metadata (symbol, timeframe, source, rows, range, checksum, seed), oldest first',
    description: PAGING,
    query: datasetListQuery,
    output: datasetPage,
    mcp: { name: 'trading_datasets', title: 'Datasets of OHLCV bars with their metadata' },
    handler: (input, { readback }) => readback.datasets(input),
  }),
  defineTradingOperation({
    name: 'trading.datasets.get',
    method: 'GET',
    group: 'v11',
    path: '/datasets/:ref',
    summary: 'One dataset by id, symbol or symbol@timeframe: its metadata, the rows that refer to it, and a page of its bars (oldest first)',
    description: PAGING,
    params: datasetParams,
    query: datasetListQuery,
    output: datasetDetail,
    // A 500-bar page costs ~1.5 ms of synchronous reads and ~1 ms of JSON: each read waits for a turn of its own.
    ownTurn: true,
    largeAnswer: true,
    // At most PAGE_LIMIT_MAX (500) bars and the dataset's rows: ~120 KB, so 30 pages at once fit one client's share.
    answerBytes: 2 ** 20,
    handler: ({ ref, ...query }, { readback, principal }) => readback.dataset(ref, query, principal.owner),
  }),
  defineTradingOperation({
    name: 'trading.datasets.delete',
    method: 'DELETE',
    group: 'v11',
    path: '/datasets/:ref',
    action: 'dataset.write',
    summary: 'Delete a dataset and its bars; needs scope trading:write',
    description: 'Refused with 409 while runs or signals refer to the dataset, unless `?cascade=true` (they are deleted with it). ' +
      'A dataset the paper ledger refers to (cycles, orders, fills, positions) is never deleted: the ledger re-derives cash from its fills.',
    params: datasetParams,
    query: datasetDeleteQuery,
    output: datasetDeleted,
    handler: ({ ref, cascade }, { readback }) => readback.deleteDataset(ref, cascade === 'true' || cascade === '1'),
  }),
  defineTradingOperation({
    name: 'trading.v10.datasets',
    method: 'GET',
    group: 'v10',
    path: '/datasets',
    deprecated: true,
    summary: 'Datasets with their metadata (deprecated: use GET /api/v11/datasets)',
    description: `${PAGING} The first page keeps the v10 shape ({datasets}), with limit and next_cursor beside it.`,
    query: datasetListQuery,
    output: datasetPage,
    handler: (input, { readback }) => readback.datasets(input),
  }),
]
