// The command center's job panel in Chromium: a running walk-forward search shows up with a progress bar that moves
// (fed by the job's SSE stream), then ends with a link to its result.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe.skipIf(!hasChromium)('/command-center job panel in Chromium (needs /usr/bin/chromium)', () => {
  // The full seed's 100k-bar series makes the search last long enough to watch.
  const host = browserHost({ tradingSeed: 'full' }, (app) => app.admission.override('live-bound'))

  it('shows a running job whose progress bar moves, then its result link', async () => {
    const datasets = (await host.app.inject('/api/v11/datasets')).json().datasets as Array<{ symbol: string; rows: number }>
    const dataset = [...datasets].sort((a, b) => b.rows - a.rows)[0]!.symbol
    const res = await host.app.inject({
      method: 'POST', url: '/api/v11/trading/max-edge-signal', headers: { prefer: 'respond-async' },
      payload: { dataset, strategies: ['sma_cross'], grid: { sma_cross: { fast: range(2, 40), slow: range(60, 89) } }, timeout_ms: 60_000 },
    })
    expect(res.statusCode).toBe(202)
    const id = res.json().id as string

    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(`${host.base}/command-center`)
    const row = page.locator(`#jobs-body tr[data-job="${id}"]`)
    await row.waitFor({ timeout: 30_000 })
    // Progress values seen while the job runs: they must rise at least once before it ends.
    const seen: number[] = []
    for (let i = 0; i < 600; i++) {
      const state = await row.getAttribute('data-state')
      seen.push(await row.locator('progress').evaluate((el) => (el as unknown as { value: number }).value))
      if (state === 'succeeded') break
      if (seen.length === 4) await page.screenshot({ path: join(SCREENSHOTS, 'command-center-jobs.png'), fullPage: true })
      await page.waitForTimeout(100)
    }
    const rising = seen.some((v, i) => i > 0 && v > seen[i - 1]! && seen[i - 1]! > 0)
    expect(rising, `progress values seen: ${seen.join(' ')}`).toBe(true)
    await row.locator('a', { hasText: 'result' }).waitFor({ timeout: 60_000 })
    expect(await row.getAttribute('data-state')).toBe('succeeded')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)
})
