// Every trading route through the host: happy paths, bad input as RFC 9457 problems, deprecation headers on v10.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

let app: FastifyInstance

beforeAll(async () => {
  app = await buildTradingApp()
})
afterAll(async () => {
  await app?.close()
})

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, payload: payload as object, headers })

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const problem = json(res)
  expect(problem).toMatchObject({ status, code, type: `urn:ncm-hub:problem:${code.replaceAll('_', '-')}` })
  expect(typeof problem.title).toBe('string')
  expect(typeof problem.detail).toBe('string')
  expect(problem.instance).toBe(res.raw.req.url)
  return problem
}

const STAT_KEYS = [
  'start', 'end', 'duration_days', 'exposure_pct', 'equity_final', 'equity_peak', 'commissions', 'return_pct',
  'buy_hold_return_pct', 'return_ann_pct', 'volatility_ann_pct', 'cagr_pct', 'sharpe_ratio', 'sortino_ratio',
  'calmar_ratio', 'alpha_pct', 'beta', 'max_drawdown_pct', 'avg_drawdown_pct', 'max_drawdown_duration_days',
  'avg_drawdown_duration_days', 'trades', 'win_rate_pct', 'best_trade_pct', 'worst_trade_pct', 'avg_trade_pct',
  'max_trade_duration_days', 'avg_trade_duration_days', 'profit_factor', 'expectancy_pct', 'sqn', 'kelly_criterion',
]

describe('system routes', () => {
  it('GET /health answers version 11.0.0 with a database check and uptime', async () => {
    const res = await app.inject('/health')
    expect(res.statusCode).toBe(200)
    expect(json(res)).toMatchObject({ status: 'ok', version: '11.0.0', checks: { database: { ok: true } } })
    expect(typeof json(res).uptime_s).toBe('number')
  })

  it('GET /api/v11/system/mode says paper, live trading off, with a reason', async () => {
    const body = json(await app.inject('/api/v11/system/mode'))
    expect(body).toMatchObject({ mode: 'paper', live_trading: false })
    expect(body.reason).toMatch(/paper/)
  })

  it('GET /api/v11/system/health lists per-component checks', async () => {
    const body = json(await app.inject('/api/v11/system/health'))
    expect(body.version).toBe('11.0.0')
    const names = body.components.map((c: { name: string }) => c.name)
    expect(names).toEqual(expect.arrayContaining(['database', 'migrations', 'datasets', 'mill', 'admission', 'rpc']))
    expect(body.components.find((c: { name: string }) => c.name === 'database').status).toBe('ok')
  })

  it('GET /api/v11/system/inventory lists datasets, strategies with parameter schemas, routes and counts', async () => {
    const body = json(await app.inject('/api/v11/system/inventory'))
    expect(body.datasets.length).toBeGreaterThan(0)
    const sma = body.strategies.find((s: { name: string }) => s.name === 'sma_cross')
    expect(sma.params.properties).toHaveProperty('fast')
    expect(sma.defaults).toEqual({ fast: 10, slow: 20 })
    const routes = body.routes.map((r: { method: string; url: string }) => `${r.method} ${r.url}`)
    for (const route of [
      'GET /health', 'GET /api/v11/system/inventory', 'GET /api/v11/system/health', 'GET /api/v11/system/mode',
      'GET /api/v11/system/verify', 'GET /api/v11/db/stats', 'POST /api/v11/trading/backtest', 'POST /api/v11/trading/simulate',
      'POST /api/v11/trading/max-edge-signal', 'POST /api/v11/trading/full-cycle', 'GET /api/v10/system/health',
      'POST /api/v10/trading/max-edge-signal', 'GET /api/v10/datasets', 'GET /api/v6/rpc/snapshot', 'GET /api/v6/rpc/best',
      'GET /api/v6/command-center/panels', 'POST /api/v11/datasets', 'GET /command-center',
    ]) expect(routes).toContain(route)
    expect(body.counts).toMatchObject({ orders: expect.any(Number), fills: expect.any(Number), runs: expect.any(Object) })
  })

  // On PostgreSQL (TRADING_TEST_BACKEND=postgres) the statistics are test/store/postgres-host.test.ts's.
  it.skipIf(process.env.TRADING_TEST_BACKEND === 'postgres')('GET /api/v11/db/stats reports tables, pages, journal mode and the SQLite version', async () => {
    const body = json(await app.inject('/api/v11/db/stats'))
    expect(body.sqlite_version).toMatch(/^3\.\d+/)
    expect(body.page_size).toBeGreaterThan(0)
    expect(body.database_bytes).toBe(body.page_size * body.page_count)
    expect(body.in_memory).toBe(true)
    expect(body.file_bytes).toBeNull()
    const bars = body.tables.find((t: { name: string }) => t.name === 'bars')
    const datasets = json(await app.inject('/api/v11/datasets')).datasets as Array<{ rows: number }>
    expect(bars.rows).toBe(datasets.reduce((s, d) => s + d.rows, 0))
  })

  it('GET /api/v11/system/verify passes every check on a fresh host', async () => {
    const body = json(await app.inject('/api/v11/system/verify'))
    expect(body.ok).toBe(true)
    const names = new Set(body.checks.map((c: { name: string }) => c.name))
    const own = app.store.sql.dialect === 'sqlite'
      ? ['sqlite_integrity_check', 'sqlite_foreign_key_check']
      : ['postgres_indexes_valid', 'postgres_constraints_validated']
    for (const name of [...own, 'dataset_checksum', 'dataset_ohlc_sanity', 'ledger_reconciliation']) {
      expect(names).toContain(name)
    }
  })

  it('unknown paths under the platform prefixes are 404 problems', async () => {
    for (const url of ['/api/v11/nope', '/api/v10/nope', '/api/v6/nope']) {
      const problem = expectProblem(await app.inject(url), 404, 'not_found')
      expect(problem.detail).toContain('on the trading platform')
      expect(problem.see).toBe('/api/v11/system/inventory')
    }
  })

  it('unknown paths outside every surface are neutral 404 problems naming the host, not a surface', async () => {
    const problem = expectProblem(await app.inject('/nope'), 404, 'not_found')
    expect(problem.detail).toBe('no route GET /nope on this host')
    expect(problem.see).toBe('/docs')
  })
})

describe('POST /api/v11/trading/backtest', () => {
  const base = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, cash: 10_000, commission: 0.002 }

  it('answers the SPEC §6 statistics, stores the run with its inputs digest, and recognises a repeat', async () => {
    const res = await post('/api/v11/trading/backtest', base)
    expect(res.statusCode, res.body).toBe(200)
    const body = json(res)
    expect(Object.keys(body.stats).sort()).toEqual([...STAT_KEYS, 'annualization'].sort())
    expect(body.stats.max_drawdown_pct).toBeLessThanOrEqual(0)
    expect(body.run.inputs_digest).toMatch(/^[0-9a-f]{64}$/)
    expect(body.trades).toBeUndefined()
    expect(body.equity).toBeUndefined()
    const again = json(await post('/api/v11/trading/backtest', { ...base, params: { slow: 30, fast: 10 } }))
    expect(again.run.inputs_digest).toBe(body.run.inputs_digest)
    expect(again.run.same_inputs_as_run).toBe(body.run.id)
    expect(again.stats).toEqual(body.stats)
  })

  it('includes trades and a downsampled equity curve on request, and honours from/to', async () => {
    const body = json(await post('/api/v11/trading/backtest', {
      ...base, include: ['trades', 'equity'], equity_points: 100, from: '2016-01-01', to: '2017-06-30', finalize_trades: true,
    }))
    expect(body.dataset.from >= '2016-01-01').toBe(true)
    expect(body.dataset.to <= '2017-06-30T23:59:59.999Z').toBe(true)
    expect(body.equity.downsampled).toBe(true)
    expect(body.equity.points.length).toBeLessThanOrEqual(100)
    expect(body.equity.total_points).toBe(body.dataset.bars)
    expect(body.trades.length).toBe(body.stats.trades) // finalize_trades: every trade is closed and counted
    expect(body.trades.every((t: { open: boolean }) => !t.open)).toBe(true)
  })

  it('refuses bad input with problems naming the field and the valid choices', async () => {
    const fastSlow = expectProblem(await post('/api/v11/trading/backtest', { ...base, params: { fast: 30, slow: 10 } }), 400, 'invalid_input')
    expect(fastSlow.errors[0].path).toBe('params.fast')
    const strategy = expectProblem(await post('/api/v11/trading/backtest', { ...base, strategy: 'moon' }), 400, 'invalid_input')
    expect(strategy.valid_choices).toContain('sma_cross')
    const dataset = expectProblem(await post('/api/v11/trading/backtest', { ...base, dataset: 'NOPE' }), 404, 'not_found')
    expect(dataset.valid_choices.map((d: { symbol: string }) => d.symbol)).toContain('SYN-DAILY')
    const unknownField = expectProblem(await post('/api/v11/trading/backtest', { ...base, leverage: 10 }), 400, 'invalid_input')
    expect(unknownField.errors.length).toBeGreaterThan(0)
    expectProblem(await post('/api/v11/trading/backtest', { ...base, cash: -5 }), 400, 'invalid_input')
    expectProblem(await post('/api/v11/trading/backtest', { ...base, from: 'yesterday-ish' }), 400, 'invalid_input')
    expectProblem(await post('/api/v11/trading/backtest', { ...base, from: '2030-01-01' }), 400, 'invalid_input')
    const notJson = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: '{"dataset":', headers: { 'content-type': 'application/json' } })
    expectProblem(notJson, 400, 'invalid_input')
  })

  it('refuses heavy work with 503 occupied and Retry-After while the host sheds load', async () => {
    app.admission.override('shedding')
    try {
      const res = await post('/api/v11/trading/backtest', base)
      const problem = expectProblem(res, 503, 'occupied')
      expect(res.headers['retry-after']).toBe(String(problem.retry_after_s))
    } finally {
      app.admission.override('live-bound')
    }
  })
})

describe('POST /api/v11/trading/simulate', () => {
  const body = { dataset: 'SYN-DAILY', strategy: 'sma_cross', paths: 150, horizon: 60, seed: 42 }

  it('answers percentiles, loss probability, VaR and CVaR, reproducibly by seed', async () => {
    const a = json(await post('/api/v11/trading/simulate', body))
    expect(a).toMatchObject({ method: 'bootstrap', paths: 150, horizon: 60, seed: 42, complete: true })
    expect(a.return_pct.p5).toBeLessThanOrEqual(a.return_pct.p50)
    expect(a.return_pct.p50).toBeLessThanOrEqual(a.return_pct.p95)
    expect(a.probability_of_loss).toBeGreaterThanOrEqual(0)
    expect(a.cvar95_pct).toBeGreaterThanOrEqual(a.var95_pct)
    const b = json(await post('/api/v11/trading/simulate', body))
    expect(b.return_pct).toEqual(a.return_pct)
    const c = json(await post('/api/v11/trading/simulate', { ...body, seed: 43 }))
    expect(c.return_pct).not.toEqual(a.return_pct)
    const gbm = json(await post('/api/v11/trading/simulate', { ...body, method: 'gbm' }))
    expect(gbm.method).toBe('gbm')
  })

  it('refuses an unknown method and simulations over the size limit', async () => {
    const method = expectProblem(await post('/api/v11/trading/simulate', { ...body, method: 'magic' }), 400, 'invalid_input')
    expect(method.valid_choices).toEqual(['bootstrap', 'gbm'])
    const big = expectProblem(await post('/api/v11/trading/simulate', { ...body, paths: 20_000, horizon: 20_000 }), 422, 'over_limit')
    expect(big.limit).toMatchObject({ name: 'simulate_bar_steps' })
  })
})

describe('POST /api/v11/trading/max-edge-signal', () => {
  it('walks forward over a grid and answers the best out-of-sample configuration, its signal and a deflated Sharpe', async () => {
    const res = await post('/api/v11/trading/max-edge-signal', {
      dataset: 'SYN-DAILY', strategies: ['sma_cross', 'donchian_breakout'],
      grid: { sma_cross: { fast: [5, 10, 20], slow: [30, 60] } }, in_sample: 200, out_of_sample: 50,
    })
    expect(res.statusCode, res.body).toBe(200)
    const body = json(res)
    expect(['long', 'flat', 'short']).toContain(body.signal)
    expect(body.configs_tried).toBe(body.configs_planned)
    expect(body.configs_tried).toBe(6 + 10) // 3 × 2 sma pairs + donchian's default 10 periods
    expect(['sma_cross', 'donchian_breakout']).toContain(body.best.strategy)
    expect(body.deflated_sharpe.trials).toBe(body.configs_tried)
    expect(body.windows).toMatchObject({ in_sample: 200, out_of_sample: 50 })
    expect(body.folds.length).toBe(body.windows.folds)
    expect(body.oos_stats).toHaveProperty('sharpe_ratio')
    const panels = json(await app.inject('/api/v6/command-center/panels'))
    expect(panels.panels.signals[0]).toMatchObject({ origin: 'max-edge-signal', signal: body.signal })
  })

  it('answers what it has when the time budget runs out (soft deadline in the mill)', async () => {
    const body = json(await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY', timeout_ms: 1 }))
    expect(body.complete).toBe(false)
    expect(body.configs_tried).toBeLessThan(body.configs_planned)
  })

  it('refuses grids over the limit, unknown strategies in the grid, and windows longer than the data', async () => {
    const limit = expectProblem(await post('/api/v11/trading/max-edge-signal', {
      dataset: 'SYN-DAILY', strategies: ['sma_cross'], max_configs: 5, grid: { sma_cross: { fast: [5, 10, 15], slow: [30, 60] } },
    }), 422, 'over_limit')
    expect(limit.limit).toMatchObject({ name: 'configs', value: 5, requested: 6 })
    const unknown = expectProblem(await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY', grid: { moon: { x: [1] } } }), 400, 'invalid_input')
    expect(unknown.valid_choices).toContain('macd')
    expectProblem(await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY', in_sample: 100_000, out_of_sample: 100 }), 400, 'invalid_input')
  })
})

describe('v10 (deprecated)', () => {
  function expectDeprecated(res: LightMyRequestResponse, successor: string) {
    expect(res.headers.deprecation).toMatch(/^@\d+$/)
    expect(Date.parse(String(res.headers.sunset))).toBeGreaterThan(Number(String(res.headers.deprecation).slice(1)) * 1000)
    expect(res.headers.link).toBe(`<${successor}>; rel="successor-version"`)
  }

  it('GET /api/v10/system/health answers the v10 shape with Deprecation, Sunset and a successor link', async () => {
    const res = await app.inject('/api/v10/system/health')
    expect(res.statusCode).toBe(200)
    expect(json(res)).toMatchObject({ status: 'ok', api: 'v10', db: 'ok', deprecated: true })
    expectDeprecated(res, '/api/v11/system/health')
  })

  it('GET /api/v10/datasets lists datasets with metadata, paged (the first page keeps the v10 shape)', async () => {
    const res = await app.inject('/api/v10/datasets')
    expect(json(res).datasets[0]).toMatchObject({ symbol: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expectDeprecated(res, '/api/v11/datasets')
    const first = json(await app.inject('/api/v10/datasets?limit=1'))
    expect(first.datasets).toHaveLength(1)
    const second = json(await app.inject(`/api/v10/datasets?limit=1&cursor=${first.next_cursor}`))
    expect(second.datasets[0].id).toBeGreaterThan(first.datasets[0].id)
    expect((await app.inject('/api/v10/datasets?limit=501')).statusCode).toBe(422)
  })

  it('POST /api/v10/trading/max-edge-signal runs the in-sample sma_cross grid', async () => {
    const res = await post('/api/v10/trading/max-edge-signal', { dataset: 'SYN-DAILY', fast: [5, 10], slow: [20, 40] })
    expect(res.statusCode, res.body).toBe(200)
    const body = json(res)
    expect(body).toMatchObject({ strategy: 'sma_cross', tried: 4, in_sample_only: true })
    expect(['long', 'flat', 'short']).toContain(body.signal)
    expect([5, 10]).toContain(body.best.fast)
    expectDeprecated(res, '/api/v11/trading/max-edge-signal')
    const bad = await post('/api/v10/trading/max-edge-signal', { dataset: 'SYN-DAILY', fast: [50], slow: [20] })
    expectProblem(bad, 400, 'invalid_input')
    expectDeprecated(bad, '/api/v11/trading/max-edge-signal')
    const tooBig = await post('/api/v10/trading/max-edge-signal', {
      dataset: 'SYN-DAILY', fast: Array.from({ length: 100 }, (_, i) => i + 1), slow: Array.from({ length: 100 }, (_, i) => i + 200),
    })
    expect(json(tooBig).limit).toMatchObject({ name: 'grid_pairs', value: 2500 })
  })
})

describe('v6 and the command center', () => {
  it('GET /api/v6/rpc/snapshot says not configured; /rpc/best is a problem', async () => {
    expect(json(await app.inject('/api/v6/rpc/snapshot'))).toMatchObject({ configured: false, endpoints: [] })
    expectProblem(await app.inject('/api/v6/rpc/best'), 404, 'rpc_not_configured')
  })

  it('GET /api/v6/command-center/panels holds every panel, and the equity of the latest backtest', async () => {
    await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'ema_cross', include: ['equity'] })
    const body = json(await app.inject('/api/v6/command-center/panels'))
    expect(Object.keys(body.panels).sort()).toEqual(['datasets', 'equity', 'health', 'positions', 'rpc', 'runs', 'signals'])
    expect(body.panels.equity).toMatchObject({ strategy: 'ema_cross', symbol: 'SYN-DAILY' })
    expect(body.panels.equity.points.length).toBeGreaterThan(10)
    expect(body.panels.runs[0]).toMatchObject({ kind: 'backtest', strategy: 'ema_cross' })
    expect(body.mode).toEqual({ mode: 'paper', live_trading: false })
  })

  it('GET /command-center renders the panels and an SVG equity chart as HTML', async () => {
    const res = await app.inject('/command-center')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.body).toContain('id="panels"')
    expect(res.body.match(/class="panel[ "]/g)!.length).toBe(8)
    expect(res.body).toContain('id="panel-jobs"')
    expect(res.body).toMatch(/<svg id="equity-chart"[^>]*data-run-id="\d+"/)
    expect(res.body).toMatch(/<polyline class="line" points="[\d.,\s]+"/)
    expect(res.body).not.toMatch(/https?:\/\/(?!www\.w3)/) // nothing loaded from elsewhere
  })
})

describe('OpenAPI', () => {
  it('documents every trading route under its tag', async () => {
    const res = await app.inject('/docs/json')
    if (res.statusCode === 404) return // the docs plugin is the host's; nothing to check without it
    const spec = json(res)
    const ops = Object.entries(spec.paths as Record<string, Record<string, { tags?: string[]; deprecated?: boolean }>>)
    const tagged = (path: string) => Object.values(spec.paths[path] ?? {}).flatMap((op) => (op as { tags?: string[] }).tags ?? [])
    expect(tagged('/api/v11/trading/backtest')).toContain('trading v11')
    expect(tagged('/api/v10/datasets')).toContain('trading v10')
    expect(tagged('/api/v6/rpc/best')).toContain('trading v6')
    expect(ops.length).toBeGreaterThan(0)
    expect(spec.paths['/api/v10/system/health'].get.deprecated).toBe(true)
  })
})
