// Launches Debian's Chromium through playwright-core (never a downloaded browser) against an app on a loopback port.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { chromium } from 'playwright-core'
import { REPO_ROOT } from '../../src/version.js'

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
