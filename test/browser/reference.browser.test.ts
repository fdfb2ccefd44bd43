// /reference (Scalar) in a real browser under the host's CSP: it renders the host document with zero console errors
// and never reaches beyond this host (no font CDN, no telemetry, no cloud features).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

describe.skipIf(!hasChromium)('/reference in Chromium (needs /usr/bin/chromium)', () => {
  const host = browserHost()

  it('renders offline: zero console errors, no request leaves the host, no cloud buttons', async () => {
    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    // Scalar's bundle is large: on a machine busy with other work, loading it until the network is idle took over
    // Playwright's default 30 s (a run with a CPU hog beside it). Waits are bounded by the test's own limit instead.
    page.setDefaultTimeout(90_000)
    const errors: string[] = []
    const outside: string[] = []
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
    page.on('pageerror', (err) => errors.push(err.message))
    page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`) })
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(host.base) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url)
    })
    await page.goto(`${host.base}/reference`)
    await page.getByText('/api/v1/health', { exact: false }).first().waitFor()
    await page.waitForLoadState('networkidle')
    await page.screenshot({ path: join(SCREENSHOTS, 'reference-offline.png') })
    const text = await page.locator('body').innerText()
    await page.close()
    expect(errors).toEqual([])
    expect(outside).toEqual([])
    for (const cloud of ['Ask AI', 'Generate MCP', 'Deploy']) expect(text).not.toContain(cloud)
  }, 180_000)
})
