// Launches Debian's Chromium through playwright-core (never a downloaded browser) against an app on a loopback port.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { chromium } from 'playwright-core'
import { REPO_ROOT } from '../../src/version.js'
import { buildTestApp, type TestAppOptions } from '../helper.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const SCREENSHOTS = join(REPO_ROOT, 'artifacts', 'screenshots')

export async function launch(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
    ],
  })
}

/**
 * A test app on a loopback port and a Chromium beside it for a describe block: `prepare` runs on the app before it
 * listens (forced occupancy, stored data the page should show). Read `app`, `base` and `browser` inside tests.
 */
export function browserHost(
  options: TestAppOptions = {},
  prepare: (app: FastifyInstance) => Promise<void> | void = () => {},
): { readonly app: FastifyInstance; readonly base: string; readonly browser: Browser } {
  const host = {} as { app: FastifyInstance; base: string; browser: Browser }
  beforeAll(async () => {
    host.app = await buildTestApp(options)
    await prepare(host.app)
    host.base = await host.app.listen({ host: '127.0.0.1', port: 0 })
    host.browser = await launch()
  })
  afterAll(async () => {
    await host.browser?.close()
    await host.app?.close()
  })
  return host
}
