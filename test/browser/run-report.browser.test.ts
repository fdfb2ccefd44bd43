// A run's report in Chromium: a backtest's and a walk-forward search's pages render with no console error and no
// request beyond the page itself, draw every stored point and list the trades, the grid and the folds.
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

describe.skipIf(!hasChromium)('run reports in Chromium (needs /usr/bin/chromium)', () => {
  const ids = {} as { backtest: number; search: number; folds: number; configs: number; trades: number; points: number }
  const host = browserHost({}, async (app) => {
    app.admission.override('live-bound')
    const backtest = await app.inject({
      method: 'POST', url: '/api/v11/trading/backtest',
      payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 }, commission: 0.001 },
    })
    if (backtest.statusCode !== 200) throw new Error(`backtest failed: ${backtest.body}`)
    ids.backtest = JSON.parse(backtest.body).run.id
    ids.trades = JSON.parse((await app.inject(`/api/v11/runs/${ids.backtest}/trades?limit=1`)).body).total
    ids.points = JSON.parse((await app.inject(`/api/v11/runs/${ids.backtest}`)).body).equity.stored_points
    const search = await app.inject({
      method: 'POST', url: '/api/v11/trading/max-edge-signal',
      payload: { dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5, 10, 15], slow: [20, 30, 40, 60] } } },
    })
    if (search.statusCode !== 200) throw new Error(`search failed: ${search.body}`)
    const body = JSON.parse(search.body)
    ids.search = body.run.id
    ids.folds = body.windows.folds
    ids.configs = body.configs_tried
  })

  /** Opens a page, recording console errors, page errors and every request the page makes. */
  async function open(url: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await host.browser.newPage({ viewport: { width: 1100, height: 900 } })
    const errors: string[] = []
    const requests: string[] = []
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()) })
    page.on('pageerror', (err) => errors.push(err.message))
    page.on('request', (req) => requests.push(req.url()))
    const res = await page.goto(url)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/)
    return { page, errors, requests }
  }

  it('renders a backtest: equity and drawdown from every stored point, statistics, monthly returns, trades', async () => {
    const url = `${host.base}/api/v11/runs/${ids.backtest}/report`
    const { page, errors, requests } = await open(url)
    expect(await page.locator('svg#equity polyline.eq').getAttribute('data-points')).toBe(String(ids.points))
    const plotted = ((await page.locator('svg#equity polyline.eq').getAttribute('points')) ?? '').trim().split(' ')
    expect(plotted.length).toBe(ids.points)
    expect(await page.locator('svg#equity polygon.dd').count()).toBe(1)
    expect(ids.trades).toBeGreaterThan(5)
    expect(await page.locator('#trades tbody tr').count()).toBe(Math.min(ids.trades, 200))
    expect(await page.locator('#monthly tbody tr').count()).toBeGreaterThan(1)
    expect(await page.locator('#stats').textContent()).toContain('Sharpe ratio')
    expect(await page.locator('body').textContent()).toMatch(/Annualised with (252|365) periods a year/)
    // The style block applied: CSP let it in by its hash.
    expect(await page.evaluate("getComputedStyle(document.querySelector('h2')).borderBottomStyle")).toBe('solid')
    const shot = join(SCREENSHOTS, 'run-report-backtest.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`screenshot: ${shot}`)
    expect(errors).toEqual([])
    expect(requests).toEqual([url])
    await page.close()
  })

  it('renders a walk-forward search: the verdict, the parameter heat map and the folds', async () => {
    const url = `${host.base}/api/v11/runs/${ids.search}/report`
    const { page, errors, requests } = await open(url)
    expect(await page.locator('#verdict').textContent()).toMatch(new RegExp(`${ids.configs} configurations tried`))
    expect(await page.locator('svg.heatmap[data-strategy="sma_cross"] rect.cell').count()).toBe(ids.configs)
    expect(await page.locator('#folds tbody tr').count()).toBe(ids.folds)
    const shot = join(SCREENSHOTS, 'run-report-walk-forward.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`screenshot: ${shot}`)
    expect(errors).toEqual([])
    expect(requests).toEqual([url])
    await page.close()
  })
})
