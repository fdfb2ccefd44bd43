// The explorer and the reference in a real browser: /docs runs "Try it out" on /api/v1/health; /reference renders.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

describe.skipIf(!hasChromium)('explorer and reference in Chromium (needs /usr/bin/chromium)', () => {
  const host = browserHost()

  it('/docs: "Try it out" on GET /api/v1/health shows the envelope', async () => {
    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    await page.goto(`${host.base}/docs`)
    const block = page.locator('#operations-discovery-health')
    await block.waitFor({ timeout: 30_000 })
    await block.locator('.opblock-summary').first().click()
    await block.getByRole('button', { name: 'Try it out' }).click()
    await block.getByRole('button', { name: 'Execute' }).click()
    const body = block.locator('.responses-wrapper .live-responses-table .response-col_description pre').first()
    await body.waitFor({ timeout: 30_000 })
    const text = await body.innerText()
    expect(text).toContain('"surface": "marketing-caller"')
    expect(text).toContain('"invented_metrics": false')
    await body.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(SCREENSHOTS, 'docs-try-health.png') })
    await page.close()
  })

  it('/reference renders the host document', async () => {
    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    await page.goto(`${host.base}/reference`)
    await page.getByText('NCM Hub', { exact: false }).first().waitFor({ timeout: 30_000 })
    await page.getByText('/api/v1/health', { exact: false }).first().waitFor({ timeout: 30_000 })
    await page.screenshot({ path: join(SCREENSHOTS, 'reference.png') })
    await page.close()
  })
})
