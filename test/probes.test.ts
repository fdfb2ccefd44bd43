// The orchestrator's probes: /livez touches nothing, /startupz waits for the start report, /readyz checks the store,
// the mill, the disk (and Redis when configured, in test/redis) and answers 503 when one fails. The checks are shown
// only to a credential with admin:read (anyone on an open host).
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { REPO_ROOT } from '../src/version.js'
import { buildTestApp, json, okData } from './helper.js'

const ADMIN_TOKEN = 'probes-admin-token-0123456789'
const dataFile = () => join(mkdtempSync(join(tmpdir(), 'ncm-probes-')), 'ncm-hub.sqlite')
const get = async (app: FastifyInstance, url: string, token?: string) => {
  const res = await app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: res.statusCode, body: json(res) }
}
/** scripts/probe.mjs, as the Dockerfile, compose and the systemd units run it: its exit code and what it printed. */
const probeScript = (...args: string[]) => new Promise<{ code: number; stderr: string }>((resolve) => {
  execFile(process.execPath, [join(REPO_ROOT, 'scripts', 'probe.mjs'), ...args], (err, _stdout, stderr) =>
    resolve({ code: err ? Number(err.code) : 0, stderr }))
})
const check = (body: any, name: string) => body.checks.find((c: any) => c.name === name)

describe('probes on an open host with a database file', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { DATABASE_PATH: dataFile(), MEMORY_BUDGET_MIB: '16' } })
  })
  afterAll(async () => app.close())

  it('starting: /livez 200, /startupz and /readyz 503 until the start report has run; then 200', async () => {
    expect(await get(app, '/livez')).toEqual({ status: 200, body: { status: 'alive' } })
    const starting = await get(app, '/startupz')
    expect(starting).toMatchObject({ status: 503, body: { status: 'starting' } })
    expect(await get(app, '/readyz')).toMatchObject({ status: 503, body: { status: 'not_ready' } })
    // The start report runs 2 s after the host listens. What the healthchecks run: exit 1 naming the answer while not
    // ready, 0 once it is (--wait asks again).
    await app.listen({ host: '127.0.0.1', port: 0 })
    const port = (app.server.address() as { port: number }).port
    expect(await probeScript(`http://127.0.0.1:${port}/readyz`)).toEqual({ code: 1, stderr: `probe: http://127.0.0.1:${port}/readyz answered 503\n` })
    expect(await probeScript('--wait', '60', `http://127.0.0.1:${port}/startupz`)).toEqual({ code: 0, stderr: '' })
    await expect.poll(async () => (await get(app, '/startupz')).status, { timeout: 60_000, interval: 250 }).toBe(200)
    const ready = await get(app, '/readyz')
    expect(ready.status).toBe(200)
    expect(ready.body.status).toBe('ready')
    expect(ready.body.checks.map((c: any) => c.name)).toEqual(['startup', 'shutdown', 'store', 'disk', 'mill', 'memory'])
    expect(check(ready.body, 'store')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^sqlite answered SELECT 1/) })
    expect(check(ready.body, 'disk')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/MiB free in the data directory/) })
    // RSS over MEMORY_BUDGET_MIB is advice: it warns, and the host stays ready.
    expect(check(ready.body, 'memory')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/over MEMORY_BUDGET_MIB \(16 MiB\)/) })
  })

  it('a failing store makes /readyz 503; /livez still answers', async () => {
    const broken = await buildTestApp({ env: { DATABASE_PATH: dataFile() } })
    try {
      await broken.store.close()
      const ready = await get(broken, '/readyz')
      expect(ready.status).toBe(503)
      expect(check(ready.body, 'store')).toMatchObject({ status: 'fail' })
      expect(await get(broken, '/livez')).toEqual({ status: 200, body: { status: 'alive' } })
    } finally {
      await broken.close()
    }
  })
})

describe('probes on a host with ADMIN_TOKEN', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN } })
  })
  afterAll(async () => app.close())

  it('the status for anyone; the checks for admin:read only', async () => {
    const grant = okData(await app.inject({
      method: 'POST', url: '/api/v1/grant', headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { subject: 'probe-reader', scopes: ['pin:write'], ttl_s: 3600 },
    }))
    for (const url of ['/readyz', '/startupz']) {
      expect(Object.keys((await get(app, url)).body)).toEqual(['status'])
      expect(Object.keys((await get(app, url, grant.token)).body)).toEqual(['status'])
      // A bearer the host does not know is refused at every door (the access policy's one rule), probes included.
      expect((await get(app, url, 'not-a-known-token')).status).toBe(401)
      expect((await get(app, url, ADMIN_TOKEN)).body.checks.length).toBeGreaterThan(0)
    }
  })
})
