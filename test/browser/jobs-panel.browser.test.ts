// The command center's job panel in Chromium: a running walk-forward search shows up with a progress bar that moves
// (fed by the job's SSE stream), then ends with a link to its result; bars say the state (a finished job's is full and
// still, a SAT search's is indeterminate while it runs, a cancelled one has none); the Cancel button the server offers
// (cancel_url) cancels; no column is clipped.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
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

  it('bars true to state, a Cancel button that cancels, and columns that fit', async () => {
    const search = await host.app.inject({
      method: 'POST', url: '/api/v1/sat?timeout_ms=120000&want_model=false',
      headers: { prefer: 'respond-async', 'content-type': 'text/plain' }, payload: pigeonholeDimacs(12),
    })
    expect(search.statusCode, search.body).toBe(202)
    const id = search.json().data.id as string
    // A failed job, whose refusal (a long reason) fills the Result column.
    const failed = await host.app.inject({ method: 'POST', url: '/api/v11/trading/backtest', headers: { prefer: 'respond-async' },
      payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 30, slow: 10 } } })
    expect([202, 400, 422]).toContain(failed.statusCode)

    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(`${host.base}/command-center`)
    const row = page.locator(`#jobs-body tr[data-job="${id}"]`)
    await row.locator('progress').waitFor({ timeout: 30_000 })
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('running')
    // A search has no known total: the running bar is indeterminate; finished rows' bars are full and still.
    expect(await row.locator('progress:indeterminate').count()).toBe(1)
    expect(await page.locator('#jobs-body tr[data-state="succeeded"] progress:indeterminate').count()).toBe(0)
    for (const value of await page.locator('#jobs-body tr[data-state="succeeded"] progress').evaluateAll((bars) => bars.map((b) => (b as unknown as { value: number }).value))) {
      expect(value).toBe(1)
    }
    // Nothing is clipped: the panel does not scroll sideways and every cell ends inside the table.
    const fit = await page.locator('#panel-jobs').evaluate((panel) => {
      const table = panel.querySelector('table')!.getBoundingClientRect()
      const cells = [...panel.querySelectorAll('td')].map((td) => td.getBoundingClientRect().right)
      return { overflow: panel.scrollWidth - panel.clientWidth, beyond: cells.filter((right) => right > table.right + 0.5).length }
    })
    expect(fit).toEqual({ overflow: 0, beyond: 0 })
    await page.screenshot({ path: join(SCREENSHOTS, 'command-center-jobs-cancel.png'), fullPage: true })

    await row.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('cancelled')
    expect(await row.locator('progress').count()).toBe(0)
    expect(await row.locator('td.stopped').innerText()).toBe('stopped')
    expect(await row.getByRole('button').count()).toBe(0)
    expect((await host.app.inject(`/api/v11/jobs/${id}`)).json().state).toBe('cancelled')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)
})
