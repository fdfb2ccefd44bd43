// /command-center in Chromium: the panels render and the equity chart of the latest backtest is drawn.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

describe.skipIf(!hasChromium)('/command-center in Chromium (needs /usr/bin/chromium)', () => {
  const host = browserHost({}, async (app) => {
    app.admission.override('live-bound')
    // A backtest that keeps its equity curve (runs keep it only when asked, #13 item 9) gives the page a curve to draw.
    const res = await app.inject({
      method: 'POST', url: '/api/v11/trading/backtest',
      payload: {
        dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, cash: 10_000, commission: 0.001,
        include: ['equity'],
      },
    })
    if (res.statusCode !== 200) {
      const datasets = (await app.inject('/api/v10/datasets')).body
      throw new Error(`backtest for the page failed: ${res.statusCode} ${res.body}\n${datasets.slice(0, 400)}`)
    }
  })

  it('shows the panels and draws the equity chart', async () => {
    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(`${host.base}/command-center`)
    await page.locator('#panels').waitFor({ timeout: 30_000 })
    expect(await page.locator('#panels .panel').count()).toBeGreaterThanOrEqual(5)
    const chart = page.locator('svg#equity-chart')
    await chart.waitFor({ timeout: 30_000 })
    const path = chart.locator('path, polyline').first()
    await path.waitFor({ timeout: 30_000 })
    const drawn = (await path.getAttribute('d')) ?? (await path.getAttribute('points')) ?? ''
    expect(drawn.length).toBeGreaterThan(50)
    await page.screenshot({ path: join(SCREENSHOTS, 'command-center.png'), fullPage: true })
    expect(errors).toEqual([])
    await page.close()
  })
})
