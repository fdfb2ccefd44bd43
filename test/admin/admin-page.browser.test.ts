// The /admin page in Debian's Chromium: an open host renders at once; a host with ADMIN_TOKEN asks for it, keeps it
// in sessionStorage only, refuses a wrong one and renders with the right one.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import type { Browser } from 'playwright-core'
import { buildTestApp } from '../helper.js'
import { SCREENSHOTS, hasChromium, launch } from '../browser/browser.js'

const ADMIN_TOKEN = 'browser-admin-token-0123456789'

describe.skipIf(!hasChromium)('/admin in Chromium (needs /usr/bin/chromium)', () => {
  let open: FastifyInstance
  let locked: FastifyInstance
  let browser: Browser
  const base = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  beforeAll(async () => {
    open = await buildTestApp()
    locked = await buildTestApp({ env: { ADMIN_TOKEN } })
    await open.listen({ host: '127.0.0.1', port: 0 })
    await locked.listen({ host: '127.0.0.1', port: 0 })
    browser = await launch()
    // The first /admin answer runs the known-answer tests, which are slow on a busy machine: run them here, under this
    // hook's deadline, so the page's load is the page's own.
    await open.inject('/admin')
  }, 240_000)
  afterAll(async () => {
    await browser?.close()
    await open?.close()
    await locked?.close()
  })

  it('an open host shows status, score, smoke checks, blockers, truth and metrics', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    const missing: string[] = []
    page.on('response', (res) => void (res.status() === 404 && missing.push(res.url())))
    await page.goto(`${base(open)}/admin`)
    expect(await page.locator('#status .badge').innerText()).toMatch(/^(ready|blocked)$/)
    expect(Number(await page.locator('#score').innerText())).toBeGreaterThanOrEqual(0)
    expect(await page.locator('#smoke-table tbody tr').count()).toBe(4)
    await expect.poll(() => page.locator('#truth').getAttribute('data-failed')).toBe('0')
    expect(await page.locator('#metrics').innerText()).toMatch(/p50 \/ p95 \/ p99/)
    await page.locator('#refresh').click()
    await page.locator('#refresh-note').filter({ hasText: /^updated / }).waitFor({ timeout: 30_000 })
    expect(await page.locator('#smoke-table tbody tr').count()).toBe(4)
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-open.png'), fullPage: true })
    // The icon the browser asks for (/favicon.ico) answers, so the host logs no 404 for the page.
    expect((await page.request.get(`${base(open)}/favicon.ico`)).headers()['content-type']).toMatch(/^image\/svg\+xml/)
    expect(missing).toEqual([])
    await page.close()
  })

  it('a host with ADMIN_TOKEN asks for the token and keeps it in sessionStorage only', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${base(locked)}/admin`)
    await page.locator('#login').waitFor()
    expect(await page.locator('#status').count()).toBe(0)

    await page.fill('#token', 'this-is-not-the-token')
    await page.click('#login-form button')
    await page.getByText('The token was refused (401)').waitFor({ timeout: 30_000 })
    expect(await page.evaluate("sessionStorage.getItem('ncm-admin-token')")).toBeNull()

    await page.fill('#token', ADMIN_TOKEN)
    await page.click('#login-form button')
    await page.locator('#status .badge').waitFor({ timeout: 30_000 })
    expect(await page.locator('#smoke-table tbody tr').count()).toBe(4)
    expect(await page.evaluate("sessionStorage.getItem('ncm-admin-token')")).toBe(ADMIN_TOKEN)
    expect(await page.evaluate('localStorage.length')).toBe(0)
    const cookies = await context.cookies()
    expect(cookies).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-token.png'), fullPage: true })

    // A reload keeps the session's token and renders again without asking.
    await page.reload()
    await page.locator('#status .badge').waitFor({ timeout: 30_000 })
    await context.close()
  })
})
