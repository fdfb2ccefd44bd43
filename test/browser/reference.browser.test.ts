// /reference (Scalar) in a real browser under the host's CSP: it renders the host document with zero console errors
// and never reaches beyond this host (no font CDN, no telemetry, no cloud features).
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import type { Browser } from 'playwright-core'
import { buildTestApp } from '../helper.js'
import { SCREENSHOTS, hasChromium, launch } from './browser.js'

describe.skipIf(!hasChromium)('/reference in Chromium (needs /usr/bin/chromium)', () => {
  let app: FastifyInstance
  let browser: Browser
  let base: string
  beforeAll(async () => {
    app = await buildTestApp()
    base = await app.listen({ host: '127.0.0.1', port: 0 })
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('renders offline: zero console errors, no request leaves the host, no cloud buttons', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
    const errors: string[] = []
    const outside: string[] = []
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
    page.on('pageerror', (err) => errors.push(err.message))
    page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`) })
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url)
    })
    await page.goto(`${base}/reference`)
    await page.getByText('/api/v1/health', { exact: false }).first().waitFor({ timeout: 30_000 })
    await page.waitForLoadState('networkidle')
    await page.screenshot({ path: join(SCREENSHOTS, 'reference-offline.png') })
    const text = await page.locator('body').innerText()
    await page.close()
    expect(errors).toEqual([])
    expect(outside).toEqual([])
    for (const cloud of ['Ask AI', 'Generate MCP', 'Deploy']) expect(text).not.toContain(cloud)
  })
})
