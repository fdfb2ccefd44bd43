// The explorer in Chromium: "Try it out" → Execute, with the example it pre-fills and the token set through Authorize,
// gets a documented answer (a success, or /chat's refusal by nature) on one POST of each kind the explorer fills
// differently: each surface and section, each body media type, one example or several, deprecated or not. That every
// POST's example answers a documented status is proved for all of them, through HTTP, by test/openapi-examples.test.ts;
// here, what the page does with each kind (every one of 28 took ~116 s of the heavy lane, ~4 s each to re-render).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, browserHost, hasChromium } from './browser.js'

const ADMIN_TOKEN = 'explorer-admin-token'
/** Operations refused by nature: their documented answer is the refusal. */
const REFUSED_BY_NATURE: Record<string, number> = { '/api/v1/chat': 501 }

interface Answer { path: string; status: number; undocumented: boolean; body: string }
interface Media { example?: unknown; examples?: unknown }
interface Post { deprecated?: boolean; tags?: string[]; requestBody?: { content: Record<string, Media> } }

/** What decides how the explorer fills an operation's editor and sends it. */
function kindOf(path: string, post: Post): string {
  const [type, media] = Object.entries(post.requestBody?.content ?? {})[0] ?? ['no body', {}]
  const example = media.example !== undefined ? 'one example' : media.examples ? 'examples' : 'no example'
  return [path.split('/')[2], post.deprecated ? 'deprecated' : '', post.tags?.[0], type, example].join(' ')
}

/** The first POST of each kind, in the document's order. */
function onePerKind(paths: Record<string, { post?: Post }>): string[] {
  const kinds = new Map<string, string>()
  for (const [path, item] of Object.entries(paths)) {
    const kind = item.post && kindOf(path, item.post)
    if (kind && !kinds.has(kind)) kinds.set(kind, path)
  }
  return [...kinds.values()]
}

describe.skipIf(!hasChromium)('explorer: Execute on a POST of each kind in Chromium (needs /usr/bin/chromium)', () => {
  const host = browserHost({ env: { ADMIN_TOKEN } }, (app) => app.admission.override('live-bound'))

  it('a POST of each kind answers its pre-filled example with a documented status', async () => {
    const page = await host.browser.newPage({ viewport: { width: 1366, height: 900 } })
    page.setDefaultTimeout(20_000)
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    const doc = await (await fetch(`${host.base}/docs/json`)).json() as { paths: Record<string, { post?: Post }> }
    const documented = Object.entries(doc.paths).filter(([, item]) => item.post).map(([path]) => path)
    const chosen = onePerKind(doc.paths)
    // The example of a run's id names the first stored run: one backtest stores it, as a user's first would.
    const first = await fetch(`${host.base}/api/v11/trading/backtest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 } }),
    })
    expect(first.status).toBe(200)
    await page.goto(`${host.base}/docs`)
    // deprecated operations (v10) lose their method's class: found by the method they show
    const posts = page.locator('.opblock').filter({ has: page.locator('.opblock-summary-method', { hasText: /^POST$/ }) })
    await posts.first().waitFor({ timeout: 30_000 })

    // The token as a person sets it: Authorize, paste, Authorize, Close.
    await page.locator('.auth-wrapper .authorize').click()
    const dialog = page.locator('.modal-ux')
    await dialog.locator('input[type=text], input[type=password]').first().fill(ADMIN_TOKEN)
    await dialog.locator('.auth-btn-wrapper button.authorize').click()
    await dialog.locator('.auth-btn-wrapper button.btn-done').click()

    const count = await posts.count()
    expect(count).toBe(documented.length)
    // One at a time, closed again once answered: the explorer re-renders every open operation on each change.
    const answers: Answer[] = []
    for (let i = 0; i < count; i++) {
      const block = posts.nth(i)
      const summary = block.locator('.opblock-summary').first()
      const path = (await block.locator('[data-path]').first().getAttribute('data-path')) ?? ''
      if (!chosen.includes(path)) continue
      await summary.click()
      await block.getByRole('button', { name: 'Try it out' }).click()
      // the editor holds the example, not a schema-generated placeholder (operations without a body have none)
      const editor = block.locator('textarea.body-param__text')
      if (await editor.count()) expect(await editor.inputValue(), path).not.toMatch(/"string"|9007199254740991/)
      await block.getByRole('button', { name: 'Execute' }).click()
      const row = block.locator('.live-responses-table .response').first()
      await row.waitFor({ timeout: 60_000 })
      const statusCell = row.locator('.response-col_status')
      answers.push({
        path,
        status: Number((await statusCell.innerText()).trim().split(/\s/)[0]),
        undocumented: (await statusCell.locator('.response-undocumented').count()) > 0,
        body: (await row.locator('.response-col_description pre').first().innerText()).slice(0, 200),
      })
      if (answers.length === 1) await page.screenshot({ path: join(SCREENSHOTS, 'docs-try-post.png') })
      await summary.click()
    }

    expect(chosen.length).toBeGreaterThan(5)
    expect(answers.map((a) => a.path).sort()).toEqual([...chosen].sort())
    for (const answer of answers) {
      expect(answer.undocumented, `${answer.path} ${answer.status} is undocumented: ${answer.body}`).toBe(false)
      const refused = REFUSED_BY_NATURE[answer.path]
      if (refused) expect(answer.status, answer.path).toBe(refused)
      else expect(answer.status >= 200 && answer.status < 300, `${answer.path} ${answer.status}: ${answer.body}`).toBe(true)
    }
    expect(errors).toEqual([])
    await page.close()
  }, 600_000)
})
