// The human renderings, pinned as snapshots: a list, a record, a backtest and a refusal (plain), and when colour applies.
import { describe, expect, it } from 'vitest'
import { COLOUR, PLAIN, renderData, renderRefusal, styleFor } from './render.js'

const datasets = {
  datasets: [
    { id: 1, symbol: 'SYN-DAILY', timeframe: '1d', source: 'synthetic', rows: 2610, seed: 20240601, origin: null },
    { id: 4, symbol: 'GOOG', timeframe: '1d', source: 'import', rows: 2148, seed: null, origin: 'cli' },
  ],
  limit: 50,
  next_cursor: null,
}

const surface = {
  surface: 'marketing-caller',
  prefix: '/api/v1',
  operations: 42,
  by_method: { GET: 21, POST: 21 },
  versions: { ncm: '1.0.0', hub: '1.0.0' },
  heavy: ['sat', 'jsonsat', 'budget', 'race'],
}

// The shape of POST /api/v11/trading/backtest (stats trimmed to the keys the rendering reads, plus one it skips).
const backtest = {
  run: { id: 2, inputs_digest: 'sha256:ab', same_inputs_as_run: null, created_at: '2026-11-23T23:56:20.000Z', elapsed_ms: 41.2 },
  dataset: { id: 1, symbol: 'GOOG', timeframe: '1d', source: 'import', bars: 2148, from: '2004-08-19', to: '2013-03-01' },
  strategy: 'sma_cross',
  params: { fast: 10, slow: 20 },
  settings: { cash: 10000, commission: 0.002, spread: 0, slippage_bps: 0, allow_short: false, finalize_trades: false, size: null },
  stats: {
    start: '2004-08-19', end: '2013-03-01', duration_days: 3116, exposure_pct: 97.0670391061, equity_final: 68221.96986,
    equity_peak: 68991.21986, commissions: 0, return_pct: 582.2196986, buy_hold_return_pct: 703.4582419, return_ann_pct: 25.2664,
    volatility_ann_pct: 38.3841, sharpe_ratio: 0.658259, sortino_ratio: 1.28811, calmar_ratio: 0.758919, max_drawdown_pct: -33.29265,
    trades: 94, win_rate_pct: 54.2553, profit_factor: 2.02747, kelly_criterion: 0.261803,
  },
}

const refusal = {
  code: 'invalid_input', reason: 'the input of kv does not match its schema', http_status: 400, op: 'kv',
  issues: [{ path: 'tokens', message: 'Too small: expected number to be >=1' }],
  hints: { closest: ['kv', 'fit'], valid_choices: ['llama-2-7b', 'mistral-7b'] },
}

describe('human output', () => {
  it('a list: a table, numbers right-aligned, null as a dash', () => {
    expect(renderData(datasets, PLAIN)).toMatchInlineSnapshot(`
      "datasets (2)
        id  symbol     timeframe  source     rows      seed  origin
         1  SYN-DAILY  1d         synthetic  2610  20240601  —
         4  GOOG       1d         import     2148         —  cli
      limit        50
      next_cursor  —"
    `)
  })

  it('a record: aligned keys, nested records indented', () => {
    expect(renderData(surface, PLAIN)).toMatchInlineSnapshot(`
      "surface     marketing-caller
      prefix      /api/v1
      operations  42
      by_method
        GET   21
        POST  21
      versions
        ncm  1.0.0
        hub  1.0.0
      heavy       sat, jsonsat, budget, race"
    `)
  })

  it('a backtest: what ran, then its key figures as a small table', () => {
    expect(renderData(backtest, PLAIN)).toMatchInlineSnapshot(`
      "strategy  sma_cross (fast=10 slow=20)
      dataset   GOOG 1d #1, 2148 bars
      period    2004-08-19 → 2013-03-01
      run       #2

      figure                value
      Return              582.22%
      Buy & hold return   703.46%
      Return (ann.)        25.27%
      Volatility (ann.)    38.38%
      Sharpe ratio           0.66
      Sortino ratio          1.29
      Max drawdown        -33.29%
      Trades                   94
      Win rate             54.26%
      Profit factor          2.03
      Exposure time        97.07%
      Equity final       68221.97
      Commissions               0"
    `)
  })

  it('a refusal: code and status, reason, each issue, then the hints', () => {
    expect(renderRefusal(refusal, 'kv', PLAIN)).toMatchInlineSnapshot(`
      "ncm kv: refused invalid_input (400)
        the input of kv does not match its schema
        tokens: Too small: expected number to be >=1
        did you mean: kv, fit
        hint valid choices: llama-2-7b, mistral-7b"
    `)
  })

  it('colours only a terminal, and never with NO_COLOR', () => {
    expect(styleFor({ isTTY: true }, {})).toBe(COLOUR)
    expect(styleFor({ isTTY: false }, {})).toBe(PLAIN)
    expect(styleFor({}, {})).toBe(PLAIN)
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(PLAIN)
    expect(styleFor({ isTTY: true }, { NO_COLOR: '' })).toBe(COLOUR)
    const coloured = renderRefusal(refusal, 'kv', COLOUR)
    expect(coloured).toContain('\x1b[31m')
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(renderRefusal(refusal, 'kv', PLAIN))
    expect(renderData(backtest, COLOUR).replace(/\x1b\[\d+m/g, '')).toBe(renderData(backtest, PLAIN))
  })

  it('never throws on odd shapes', () => {
    for (const odd of [null, 3.14159265, 'text', [], {}, [1, 'a', null], [{ a: { b: 1 } }], { a: [] }, { a: [[1], [2]] }, { s: 'x\ny' }]) {
      expect(typeof renderData(odd, PLAIN)).toBe('string')
    }
  })
})
