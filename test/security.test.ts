// Security properties of the whole host, end to end (issue #8): who may reach admin routes and /grant, how tokens are
// stored and compared, expiry and revocation, secrets kept out of bodies and logs, security headers, CORS, body limits
// enforced before parsing, and request ids. Per-route auth basics live in test/admin/auth.test.ts and grant.test.ts.
import * as nodeCrypto from 'node:crypto'
import { connect } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { request } from 'undici'
import { z } from 'zod'
import { buildTestApp, json, manualClock, testConfig } from './helper.js'
import { hashToken, secretsEqual } from '../src/access/tokens.js'
import { requestIdOf } from '../src/app.js'
import { ConfigError } from '../src/config.js'
import { publicEndpointUrl, REDACTION_CENSOR, redactEndpointUrl, redactUrl } from '../src/http/redact.js'
import { defineOperation } from '../src/caller/operation.js'
import { createRegistry, registry } from '../src/caller/registry.js'
import { introspect } from '../src/store/introspect.js'

// Every timingSafeEqual of the process goes through a spy that calls the real one.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})
const timingSafeEqualSpy = vi.mocked(nodeCrypto.timingSafeEqual)
beforeEach(() => {
  timingSafeEqualSpy.mockClear()
})

const ADMIN_TOKEN = 'admin-secret-3f9c1e7a2b'
const RPC_PASSWORD = 'rpc-password-77d2c0'
const RPC_API_KEY = 'rpc-apikey-5be81a'
/** Infura-style: the key is a path segment. */
const RPC_PATH_KEY = '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c'
const QUERY_SECRET = 'query-secret-0c4d9e'
const HEADER_SECRET = 'header-secret-a61f3b'
const SECRETS = [ADMIN_TOKEN, RPC_PASSWORD, RPC_API_KEY, RPC_PATH_KEY, QUERY_SECRET, HEADER_SECRET]
const BODY_LIMIT = 4096
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

// An operation that fails like a bug would when asked to: the 500 path of /api/v1 without breaking the host.
const boom = defineOperation({
  name: 'boom',
  method: 'POST',
  path: '/boom',
  lobe: 'runtime',
  caption: 'test: fails on request',
  summary: 'test: fails on request',
  input: z.object({ explode: z.boolean().default(false) }).strict(),
  output: z.object({}),
  provenance: ['computed'],
  examples: [{}],
  handler: (input) => {
    if (input.explode) throw new Error('upstream said no')
    return {}
  },
})

const logLines: string[] = []
const clock = manualClock()
let secured: FastifyInstance
let withCors: FastifyInstance
let port: number
beforeAll(async () => {
  ;[secured, withCors] = await Promise.all([
    buildTestApp({
      env: {
        ADMIN_TOKEN,
        // A loopback port with no listener (9, discard): the background probes fail fast and never leave the host.
        RPC_ENDPOINTS: `http://rpcuser:${RPC_PASSWORD}@127.0.0.1:9/rpc?apikey=${RPC_API_KEY},http://127.0.0.1:9/v3/${RPC_PATH_KEY}`,
        LOG_LEVEL: 'trace',
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
        LARGE_BODY_LIMIT_BYTES: String(2 * BODY_LIMIT),
      },
      clock,
      registry: createRegistry([...registry.operations, boom]),
      logStream: { write: (line: string) => void logLines.push(line) },
      // Section 4 reads the line of every 404 it sends; by default only 5 unmatched requests a minute are logged in full.
      unmatchedLog: { sampled: 1_000 },
    }),
    buildTestApp({ env: { CORS_ORIGINS: 'https://ops.example, http://localhost:5173' } }),
  ])
  await secured.listen({ host: '127.0.0.1', port: 0 })
  port = (secured.server.address() as { port: number }).port
})
afterAll(async () => Promise.all([secured?.close(), withCors?.close()]))

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const ADMIN_JSON = '/api/v1/admin/command-post/summary'

async function issue(scopes: string[], ttlS: number, subject = 'sec') {
  const res = await secured.inject({ method: 'POST', url: '/api/v1/grant', headers: bearer(ADMIN_TOKEN), payload: { subject, scopes, ttl_s: ttlS } })
  expect(res.statusCode, res.body).toBe(200)
  return json(res).data as { id: string; token: string; expires_at: string }
}
const grantCount = async () => Number((await secured.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM grants'))!.n)

/** The admin surfaces a credential is checked on: an enveloped JSON route, the page's panel, the Prometheus text. */
async function adminStatuses(headers: Record<string, string>): Promise<number[]> {
  const urls = [ADMIN_JSON, '/admin?partial=1', '/metrics']
  return Promise.all(urls.map(async (url) => (await secured.inject({ url, headers })).statusCode))
}

describe('1. admin routes and /grant need the admin credential', () => {
  it('refuse malformed and near-miss Authorization values everywhere the credential is checked', async () => {
    const b64 = Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')
    const nearMisses = [
      `Basic ${b64}`,
      'Bearer',
      'Bearer ',
      `Bearer ${ADMIN_TOKEN} extra`,
      `Token ${ADMIN_TOKEN}`,
      ADMIN_TOKEN,
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, // a prefix
      `Bearer ${ADMIN_TOKEN}x`, // longer
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}${ADMIN_TOKEN.endsWith('b') ? 'c' : 'b'}`, // same length, last char differs
      `Bearer ${ADMIN_TOKEN.toUpperCase()}`,
      `Bearer ${hashToken(ADMIN_TOKEN)}`, // its digest is not the credential
    ]
    const before = await grantCount()
    for (const authorization of nearMisses) {
      expect(await adminStatuses({ authorization }), authorization).toEqual([401, 401, 401])
      const grant = await secured.inject({ method: 'POST', url: '/api/v1/grant', headers: { authorization }, payload: { subject: 'x', scopes: ['admin:read'], ttl_s: 60 } })
      expect(grant.statusCode, authorization).toBe(401)
      expect(json(grant).refuse.code).toBe('unauthorized')
    }
    expect(await grantCount()).toBe(before)
    // The scheme is case-insensitive (RFC 9110), the token is not.
    expect(await adminStatuses({ authorization: `bearer ${ADMIN_TOKEN}` })).toEqual([200, 200, 200])
  })

  it('refuse HEAD and path spellings that reach the same handlers', async () => {
    const spellings = [
      ADMIN_JSON,
      '/api/v1/%61dmin/command-post/summary',
      '/api/v1/admin/command-post/%73ummary',
      '/api/v1/admin/command-post/summary?x=1',
      '/api/v1/admin/command-post/summary/',
      '/api/v1//admin/command-post/summary',
      '/API/V1/ADMIN/command-post/summary',
      '/api/v1/admin/./command-post/summary',
      '/api/v1/x/../admin/command-post/summary',
    ]
    for (const url of spellings) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await secured.inject({ method, url })
        expect([401, 404], `${method} ${url}`).toContain(res.statusCode)
        expect(res.body).not.toContain('latency')
      }
    }
    for (const method of ['GET', 'HEAD'] as const) {
      expect((await secured.inject({ method, url: '/metrics' })).statusCode).toBe(401)
      expect((await secured.inject({ method, url: '/admin?partial=1' })).statusCode).toBe(401)
    }
  })

  it('answer the admin token on every admin surface', async () => {
    expect(await adminStatuses(bearer(ADMIN_TOKEN))).toEqual([200, 200, 200])
    for (const url of ['/api/v1/admin/truth/summary', '/api/v1/admin/go-live/overview']) {
      expect((await secured.inject({ url, headers: bearer(ADMIN_TOKEN) })).statusCode, url).toBe(200)
    }
  })

  it('/grant, directly with a bad body or through /run and /cli: no credential or a grant is refused, nothing stored', async () => {
    const reader = await issue(['admin:read', 'pin:write', 'run:heavy', 'trading:write'], 600)
    const before = await grantCount()
    const input = { subject: 'via-run', scopes: ['admin:read'], ttl_s: 60 }
    const attempts = [
      { url: '/api/v1/run', payload: { op: 'grant', input } },
      { url: '/api/v1/run', payload: { batch: [{ op: 'grant', input }] } },
      { url: '/api/v1/cli', payload: { argv: ['grant', '--json', JSON.stringify(input)] } },
      // The credential is checked before the input schema: a bad body tells a stranger nothing.
      { url: '/api/v1/grant', payload: { subject: '', scopes: 'all', admin: true } },
    ]
    for (const attempt of attempts) {
      for (const [headers, code] of [[{}, 'unauthorized'], [bearer(reader.token), 'forbidden']] as const) {
        const res = await secured.inject({ method: 'POST', ...attempt, headers })
        const body = json(res)
        const refuse = body.refuse ?? body.data?.results?.[0]?.refuse
        expect(refuse?.code, `${attempt.url} ${JSON.stringify(attempt.payload)}`).toBe(code)
        expect(res.body).not.toMatch(/"token"\s*:/)
      }
    }
    expect(await grantCount()).toBe(before)
    const ok = await secured.inject({ method: 'POST', url: '/api/v1/run', headers: bearer(ADMIN_TOKEN), payload: { op: 'grant', input } })
    expect(json(ok).data.results[0].data).toMatchObject({ action: 'issued', subject: 'via-run' })
    expect(await grantCount()).toBe(before + 1)
  })
})

describe('2. tokens are stored hashed and compared in constant time', () => {
  it('after a grant is issued, neither its token nor the admin token is in any column of any table', async () => {
    const { id, token } = await issue(['pin:write'], 3600, 'stored-hashed')
    const { sql } = secured.store
    const forms = [token, Buffer.from(token, 'base64url').toString('hex'), Buffer.from(token, 'base64url').toString('base64'), ADMIN_TOKEN]
    const tables = (await introspect(sql).tables()).map((t) => t.name)
    expect(tables).toContain('grants')
    let cells = 0
    for (const table of tables) {
      for (const row of await sql.all<Record<string, unknown>>(`SELECT * FROM "${table.replaceAll('"', '""')}"`)) {
        for (const [column, value] of Object.entries(row)) {
          cells++
          const texts = Buffer.isBuffer(value) ? [value.toString('utf8'), value.toString('hex'), value.toString('base64')] : [String(value)]
          for (const text of texts) for (const form of forms) expect(text.includes(form), `${table}.${column}`).toBe(false)
        }
      }
    }
    expect(cells).toBeGreaterThan(100)
    const stored = (await sql.get<{ token_hash: string }>('SELECT token_hash FROM grants WHERE id = ?', [id]))!
    expect(stored.token_hash).toBe(nodeCrypto.createHash('sha256').update(token).digest('hex'))
  })

  it('secretsEqual compares equal-length SHA-256 digests with timingSafeEqual, whatever the inputs\' lengths', () => {
    timingSafeEqualSpy.mockClear()
    expect(secretsEqual('same secret', 'same secret')).toBe(true)
    expect(secretsEqual('short', 'a much longer secret value')).toBe(false)
    expect(secretsEqual('', 'x')).toBe(false)
    expect(secretsEqual('ab', 'ba')).toBe(false)
    expect(timingSafeEqualSpy).toHaveBeenCalledTimes(4)
    for (const [a, b] of timingSafeEqualSpy.mock.calls) {
      expect((a as Buffer).byteLength).toBe(32)
      expect((b as Buffer).byteLength).toBe(32)
    }
    // Why the digests: the primitive itself throws on inputs of different lengths.
    expect(() => nodeCrypto.timingSafeEqual(Buffer.from('short'), Buffer.from('longer'))).toThrow()
  })

  it('a bearer of any length is checked against the admin token by that path, and refused without a 500', async () => {
    for (const token of ['x', ADMIN_TOKEN.slice(0, 8), 'y'.repeat(ADMIN_TOKEN.length), 'z'.repeat(4000)]) {
      timingSafeEqualSpy.mockClear()
      const res = await secured.inject({ url: ADMIN_JSON, headers: bearer(token) })
      expect(res.statusCode).toBe(401)
      expect(json(res).refuse.code).toBe('unauthorized')
      expect(timingSafeEqualSpy).toHaveBeenCalled()
      expect(timingSafeEqualSpy.mock.results.every((r) => r.type === 'return' && r.value === false)).toBe(true)
    }
    timingSafeEqualSpy.mockClear()
    expect((await secured.inject({ url: ADMIN_JSON, headers: bearer(ADMIN_TOKEN) })).statusCode).toBe(200)
    expect(timingSafeEqualSpy.mock.results.some((r) => r.type === 'return' && r.value === true)).toBe(true)
  })
})

describe('3. expired and revoked grants are refused on every admin surface', () => {
  it('an admin:read grant works until the instant it expires, then is refused', async () => {
    const grant = await issue(['admin:read'], 60)
    expect(await adminStatuses(bearer(grant.token))).toEqual([200, 200, 200])
    clock.advance(59_999)
    expect(await adminStatuses(bearer(grant.token))).toEqual([200, 200, 200])
    clock.advance(1)
    expect(await adminStatuses(bearer(grant.token))).toEqual([401, 401, 401])
    const res = await secured.inject({ url: ADMIN_JSON, headers: bearer(grant.token) })
    expect(json(res).refuse.reason).toContain(`expired at ${grant.expires_at}`)
    // An expired grant is not a way around the gate of /run either.
    const run = await secured.inject({ method: 'POST', url: '/api/v1/run', headers: bearer(grant.token), payload: { op: 'surface' } })
    expect(run.statusCode).toBe(401)
  })

  it('a revoked grant is refused at once, long before it would expire', async () => {
    const grant = await issue(['admin:read', 'pin:write'], 3600)
    expect(await adminStatuses(bearer(grant.token))).toEqual([200, 200, 200])
    const revoke = await secured.inject({ method: 'POST', url: '/api/v1/grant', headers: bearer(ADMIN_TOKEN), payload: { revoke: grant.id } })
    expect(json(revoke).data).toMatchObject({ action: 'revoked', already_revoked: false })
    expect(await adminStatuses(bearer(grant.token))).toEqual([401, 401, 401])
    const pin = await secured.inject({ method: 'POST', url: '/api/v1/pin', headers: bearer(grant.token), payload: { content: 'after revoke' } })
    expect(json(pin).refuse).toMatchObject({ code: 'unauthorized' })
    expect(json(pin).refuse.reason).toMatch(/revoked/)
  })
})

describe('4. secrets stay out of /env, bodies and logs', () => {
  it('appear in no response body and no log line, across successes and failures of every surface', async () => {
    const bodies: Array<{ what: string; res: LightMyRequestResponse }> = []
    const send = async (what: string, opts: InjectOptions, status: number) => {
      const res = await secured.inject(opts)
      expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBe(status)
      bodies.push({ what, res })
      return res
    }
    const admin = bearer(ADMIN_TOKEN)
    const env = await send('env', { url: '/api/v1/env' }, 200)
    const effective = json(env).data.effective
    expect(effective.ADMIN_TOKEN).toBe('set')
    expect(effective.RPC_ENDPOINTS).toEqual([`http://127.0.0.1:9/${REDACTION_CENSOR}`, `http://127.0.0.1:9/${REDACTION_CENSOR}`])
    await send('env as admin', { url: '/api/v1/env', headers: admin }, 200)
    const rpc = await send('rpc snapshot', { url: '/api/v6/rpc/snapshot' }, 200)
    expect(json(rpc).endpoints.map((e: { url: string }) => e.url)).toEqual(effective.RPC_ENDPOINTS)
    await send('readiness', { url: '/api/v1/admin/go-live/overview', headers: admin }, 200)
    await send('truth', { url: '/api/v1/admin/truth/summary', headers: admin }, 200)
    await send('admin page', { url: '/admin', headers: admin }, 200)
    await send('metrics', { url: '/metrics', headers: admin }, 200)
    await send('openapi', { url: '/docs/json' }, 200)
    await send('inventory', { url: '/api/v11/system/inventory' }, 200)
    await send('panels', { url: '/api/v6/command-center/panels' }, 200)
    // Failures: a secret in the query, an unknown bearer, bad input, unknown paths, too large, a bug.
    await send('200 query', { url: `/api/v1/health?token=${QUERY_SECRET}` }, 200)
    await send('400 query', { url: `/api/v1/ops?lobe=nope&token=${QUERY_SECRET}` }, 400)
    await send('401 bearer', { url: '/api/v1/health', headers: bearer(HEADER_SECRET) }, 401)
    await send('401 admin', { url: `${ADMIN_JSON}?access_token=${QUERY_SECRET}`, headers: bearer(HEADER_SECRET) }, 401)
    await send('401 metrics', { url: '/metrics', headers: bearer(HEADER_SECRET) }, 401)
    await send('401 page', { url: '/admin?partial=1', headers: { authorization: `Basic ${HEADER_SECRET}` } }, 401)
    await send('400 body', { method: 'POST', url: `/api/v1/kv?api_key=${QUERY_SECRET}`, payload: { tokens: -1, secret: HEADER_SECRET } }, 400)
    await send('404 caller', { url: `/api/v1/nowhere?token=${QUERY_SECRET}` }, 404)
    await send('404 trading', { url: `/api/v11/nowhere?token=${QUERY_SECRET}` }, 404)
    await send('400 trading', { method: 'POST', url: `/api/v11/trading/backtest?api-key=${QUERY_SECRET}`, headers: admin, payload: { dataset: 1 } }, 400)
    await send('413', { method: 'POST', url: `/api/v1/kv?token=${QUERY_SECRET}`, payload: { pad: HEADER_SECRET.repeat(BODY_LIMIT) } }, 413)
    const bug = await send('500', { method: 'POST', url: `/api/v1/boom?token=${QUERY_SECRET}&keep=1`, headers: admin, payload: { explode: true } }, 500)
    expect(json(bug).refuse.reason).not.toContain('upstream said no')
    const issued = await send('grant', { method: 'POST', url: '/api/v1/grant', headers: admin, payload: { subject: 'logs', scopes: ['pin:write'], ttl_s: 60 } }, 200)
    const grantToken = json(issued).data.token as string
    await send('pin with grant', { method: 'POST', url: `/api/v1/pin?token=${grantToken}`, headers: bearer(grantToken), payload: { content: 'x' } }, 200)

    for (const { what, res } of bodies) {
      const shown = res.body + JSON.stringify(res.headers)
      for (const secret of SECRETS) expect(shown.includes(secret), `${what} shows ${secret}`).toBe(false)
      // The issued token is shown once: in the answer that issued it and nowhere else.
      if (what !== 'grant') expect(shown.includes(grantToken), `${what} shows the grant token`).toBe(false)
    }

    const log = logLines.join('')
    expect(logLines.length).toBeGreaterThan(bodies.length)
    for (const secret of [...SECRETS, grantToken]) expect(log.includes(secret), `the log shows ${secret}`).toBe(false)
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, any>)
    // The censored URLs keep what is not secret, so a log line still says which request it was.
    const urls = entries.filter((e) => e.req?.url).map((e) => e.req.url as string)
    expect(urls).toContain(`/api/v1/nowhere?token=${REDACTION_CENSOR}`)
    expect(urls).toContain(`/api/v11/trading/backtest?api-key=${REDACTION_CENSOR}`)
    const internal = entries.filter((e) => e.msg === 'internal error')
    expect(internal.map((e) => e.url)).toContain(`/api/v1/boom?token=${REDACTION_CENSOR}&keep=1`)
    expect(internal[0]?.err?.message).toBe('upstream said no')
    const trading404 = bodies.find((b) => b.what === '404 trading')!
    expect(json(trading404.res).instance).toBe(`/api/v11/nowhere?token=${REDACTION_CENSOR}`)
  })

  it('the host logger censors the redacted fields wherever they are logged', () => {
    const from = logLines.length
    secured.log.info({ token: QUERY_SECRET, adminToken: ADMIN_TOKEN, grant: { token: HEADER_SECRET }, input: { hmac_key: RPC_API_KEY } }, 'redaction probe')
    const line = logLines.slice(from).find((l) => l.includes('redaction probe'))!
    for (const secret of SECRETS) expect(line).not.toContain(secret)
    expect(JSON.parse(line)).toMatchObject({
      token: REDACTION_CENSOR, adminToken: REDACTION_CENSOR, grant: { token: REDACTION_CENSOR }, input: { hmac_key: REDACTION_CENSOR },
    })
  })

  it('redactEndpointUrl shows scheme, host and port only; publicEndpointUrl all but the user and password', () => {
    const c = REDACTION_CENSOR
    expect(redactEndpointUrl('https://mainnet.infura.io/v3/9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c')).toBe(`https://mainnet.infura.io/${c}`)
    expect(redactEndpointUrl('http://u:p@node.local:8545/rpc?key=k&chain=1')).toBe(`http://node.local:8545/${c}`)
    // Short keys no heuristic tells from route words, and fragments, are hidden too.
    expect(redactEndpointUrl('https://rpc.example/v1/mySecretKey42')).toBe(`https://rpc.example/${c}`)
    expect(redactEndpointUrl('https://rpc.example#key=s3cr3t')).toBe(`https://rpc.example/${c}`)
    expect(redactEndpointUrl('https://rpc.example:8443')).toBe('https://rpc.example:8443/')
    expect(publicEndpointUrl('https://rpc.example/ethereum-mainnet/v1?chain=1')).toBe('https://rpc.example/ethereum-mainnet/v1?chain=1')
    expect(publicEndpointUrl('http://u:p@node.local:8545/rpc')).toBe(`http://${c}:${c}@node.local:8545/rpc`)
  })

  it('redactUrl censors secret-looking query values only', () => {
    expect(redactUrl('/a/b')).toBe('/a/b')
    expect(redactUrl('/a?token=s&symbol=GOOG&rerun=1')).toBe(`/a?token=${REDACTION_CENSOR}&symbol=GOOG&rerun=1`)
    for (const key of ['access_token', 'api-key', 'apikey', 'API_KEY', 'client_secret', 'password', 'sig', 'auth', 'x%2Dapi%2Dkey', 'user[token]']) {
      expect(redactUrl(`/a?${key}=s3cr3t`), key).toBe(`/a?${key}=${REDACTION_CENSOR}`)
    }
    for (const key of ['signal', 'partial', 'strategy', 'q']) expect(redactUrl(`/a?${key}=v`), key).toBe(`/a?${key}=v`)
    expect(redactUrl('/a?token&x=%E0%A4%A')).toBe('/a?token&x=%E0%A4%A')
  })
})

describe('5. security headers on all three surfaces', () => {
  const pages = [
    { url: '/api/v1/health', status: 200 },
    { url: '/health', status: 200 },
    { url: '/api/v11/system/health', status: 200 },
    { url: '/admin', status: 200, html: true },
    { url: '/command-center', status: 200, html: true },
    { url: '/api/v1/nowhere', status: 404 },
    { url: '/api/v11/nowhere', status: 404 },
    { url: ADMIN_JSON, status: 401 },
    { url: '/metrics', status: 401 },
  ]
  for (const page of pages) {
    it(`${page.url} (${page.status})`, async () => {
      const res = await secured.inject(page.url)
      expect(res.statusCode).toBe(page.status)
      const h = res.headers
      expect(h['x-content-type-options']).toBe('nosniff')
      expect(h['x-frame-options']).toMatch(/^(SAMEORIGIN|DENY)$/)
      expect(h['referrer-policy']).toBe('no-referrer')
      // Plain HTTP: RFC 6797 §7.2 forbids Strict-Transport-Security here (see the TLS case below).
      expect(h['strict-transport-security']).toBeUndefined()
      expect(h['x-powered-by']).toBeUndefined()
      const csp = String(h['content-security-policy'] ?? '')
      expect(csp).toMatch(/frame-ancestors '(self|none)'/)
      if (page.html) {
        expect(h['content-type']).toMatch(/^text\/html/)
        expect(csp).toMatch(/default-src 'self'/)
        expect(csp).toMatch(/object-src 'none'/)
        expect(csp).toMatch(/base-uri 'self'/)
        expect(h['cross-origin-opener-policy']).toBe('same-origin')
      } else {
        // JSON answers: nothing may load from them, nothing may frame them.
        expect(csp).toMatch(/default-src '(none|self)'/)
      }
    })
  }
})

describe('5b. Strict-Transport-Security only over TLS', () => {
  it('is sent when a trusted proxy says the client used https, on pages and API answers alike', async () => {
    const proxied = await buildTestApp({ env: { TRUST_PROXY: 'true' } })
    try {
      // A page that does not start the known-answer tests (/admin's first answer runs them, which is slow on a busy machine).
      for (const url of ['/api/v1/health', '/command-center', '/api/v11/system/health']) {
        const tls = await proxied.inject({ url, headers: { 'x-forwarded-proto': 'https' } })
        expect(tls.headers['strict-transport-security'], url).toMatch(/max-age=\d{7,}/)
        const plain = await proxied.inject({ url, headers: { 'x-forwarded-proto': 'http' } })
        expect(plain.headers['strict-transport-security'], url).toBeUndefined()
      }
    } finally {
      await proxied.close()
    }
  })

  it('ignores a forwarded protocol from a proxy that is not trusted', async () => {
    const res = await secured.inject({ url: '/api/v1/health', headers: { 'x-forwarded-proto': 'https' } })
    expect(res.headers['strict-transport-security']).toBeUndefined()
  })
})

describe('6. CORS is explicit', () => {
  const preflight = (app: FastifyInstance, origin: string, url = '/api/v1/kv') =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    })
  const corsHeaders = (res: LightMyRequestResponse) => Object.keys(res.headers).filter((k) => k.startsWith('access-control-'))

  it('by default no origin is granted anything: no Access-Control-* header on a preflight or a request', async () => {
    for (const origin of ['https://evil.example', 'https://ops.example', 'null']) {
      const pre = await preflight(secured, origin)
      expect(corsHeaders(pre), origin).toEqual([])
      expect(pre.statusCode).toBe(404)
      expect(json(pre).refuse.code).toBe('not_found')
      const get = await secured.inject({ url: '/api/v1/health', headers: { origin } })
      expect(corsHeaders(get)).toEqual([])
    }
    expect(json(await secured.inject('/api/v1/env')).data.effective.CORS_ORIGINS).toEqual([])
  })

  it('a listed origin is echoed exactly, on the preflight and on the request, with Vary: Origin', async () => {
    const pre = await preflight(withCors, 'https://ops.example')
    expect(pre.statusCode).toBe(204)
    expect(pre.headers['access-control-allow-origin']).toBe('https://ops.example')
    expect(String(pre.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST']))
    expect(String(pre.headers['access-control-allow-headers']).split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type']))
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined()
    expect(String(pre.headers.vary)).toMatch(/\bOrigin\b/i)
    for (const url of ['/api/v1/health', '/api/v11/system/health', '/api/v1/nowhere']) {
      const res = await withCors.inject({ url, headers: { origin: 'http://localhost:5173' } })
      expect(res.headers['access-control-allow-origin'], url).toBe('http://localhost:5173')
      expect(String(res.headers.vary)).toMatch(/\bOrigin\b/i)
      expect(String(res.headers['access-control-expose-headers'])).toContain('x-request-id')
    }
    expect(json(await withCors.inject('/api/v1/env')).data.effective.CORS_ORIGINS).toEqual(['https://ops.example', 'http://localhost:5173'])
  })

  it('any other origin, however close, gets no Access-Control-Allow-Origin', async () => {
    const others = ['https://evil.example', 'http://ops.example', 'https://ops.example:8443', 'https://ops.example.evil.example', 'https://sub.ops.example', 'null', 'https://OPS.example']
    for (const origin of others) {
      const pre = await preflight(withCors, origin)
      expect(pre.headers['access-control-allow-origin'], origin).toBeUndefined()
      const get = await withCors.inject({ url: '/api/v1/health', headers: { origin } })
      expect(get.statusCode).toBe(200)
      expect(get.headers['access-control-allow-origin'], origin).toBeUndefined()
      expect(String(get.headers.vary)).toMatch(/\bOrigin\b/i)
    }
  })

  it('CORS_ORIGINS takes exact origins only', () => {
    for (const bad of ['*', 'https://ops.example/', 'https://ops.example/app', 'ops.example', 'https://OPS.example', 'https://ops.example:443', 'null']) {
      expect(() => testConfig({ CORS_ORIGINS: bad }), bad).toThrow(ConfigError)
      expect(() => testConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/)
    }
    expect(testConfig({ CORS_ORIGINS: ' https://a.example ,, http://127.0.0.1:5173 ' }).corsOrigins).toEqual(['https://a.example', 'http://127.0.0.1:5173'])
    expect(testConfig().corsOrigins).toEqual([])
  })
})

/** One HTTP/1.1 exchange over a raw socket: writes `head` and `partial`, then reads the whole answer, never sending more. */
function rawExchange(head: string, partial: string): Promise<{ status: number; headers: Record<string, string>; body: string; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    const chunks: Buffer[] = []
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('no answer within 5 s')) }, 5000)
    socket.on('error', reject)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      const text = Buffer.concat(chunks).toString('utf8')
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) return
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      const body = text.slice(end + 4)
      if (Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return
      clearTimeout(timer)
      socket.destroy()
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body, sentBytes: Buffer.byteLength(head + partial) })
    })
    socket.write(head + partial)
  })
}

describe('7. oversized bodies are refused before they are read', () => {
  const declared = 50 * 1024 * 1024
  const head = (path: string, extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Request-Id: big-1\r\n${extra}\r\n`

  it('/api/v1: a Content-Length over the limit gets the enveloped 413 after a few bytes of the body', async () => {
    const res = await rawExchange(head('/api/v1/kv', `Content-Length: ${declared}\r\n`), '{"model":"')
    expect(res.sentBytes).toBeLessThan(1024)
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toMatchObject({ ok: false, data: null, refuse: { code: 'payload_too_large', http_status: 413 } })
    expect(res.headers['x-request-id']).toBe('big-1')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('/api/v11: the same as problem+json', async () => {
    // Heavy work needs run:heavy (the access policy, asked before the body): the admin token passes that door.
    const res = await rawExchange(head('/api/v11/trading/backtest', `Content-Length: ${declared}\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`), '{"dataset":')
    expect(res.status).toBe(413)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(JSON.parse(res.body)).toMatchObject({ status: 413, code: 'payload_too_large' })
  })

  it('a chunked body is cut off once it passes the limit, without waiting for its end', async () => {
    const chunk = 'x'.repeat(1000)
    const chunks = Array.from({ length: 5 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('') // no final 0-chunk
    const res = await rawExchange(head('/api/v1/kv', 'Transfer-Encoding: chunked\r\n'), chunks)
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).refuse.code).toBe('payload_too_large')
  })

  it('a scoped upload without its credential is refused before its body is read', async () => {
    const upload = `POST /api/v11/datasets?symbol=EARLY HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: ${2 * BODY_LIMIT - 16}\r\n\r\n`
    for (const authorization of ['', `Authorization: Bearer ${HEADER_SECRET}\r\n`]) {
      const res = await rawExchange(upload.replace('\r\n\r\n', `\r\n${authorization}\r\n`), 'Date,Open,High,Low,Close,Volume\n')
      expect(res.status).toBe(401)
      expect(JSON.parse(res.body)).toMatchObject({ status: 401, code: 'unauthorized' })
    }
  })

  it('a body under the limit still goes through over the same kind of socket', async () => {
    const res = await request(`http://127.0.0.1:${port}/api/v1/kv`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'llama-2-7b', tokens: 4096 }),
    })
    const body = (await res.body.json()) as { ok: boolean; data: { tokens: number } }
    expect(res.statusCode).toBe(200)
    expect(body.data.tokens).toBe(4096)
  })
})

describe('8. request ids', () => {
  it('a client-supplied plain id is echoed on every surface, refusals included', async () => {
    for (const url of ['/api/v1/health', '/api/v11/system/health', '/admin', '/api/v1/nowhere', ADMIN_JSON]) {
      const res = await secured.inject({ url, headers: { 'x-request-id': 'client-7f3a.9:b_c' } })
      expect(res.headers['x-request-id'], url).toBe('client-7f3a.9:b_c')
    }
    const bug = await secured.inject({ method: 'POST', url: '/api/v1/boom', headers: { 'x-request-id': 'trace-500', ...bearer(ADMIN_TOKEN) }, payload: { explode: true } })
    // The envelope has no request-id field; a 500's reason names the id (SPEC §1.2).
    expect(json(bug).refuse.reason).toBe('internal error; request id trace-500')
  })

  it('one is generated when absent: a fresh UUID per request', async () => {
    const a = await secured.inject('/api/v1/health')
    const b = await secured.inject('/api/v1/health')
    expect(a.headers['x-request-id']).toMatch(UUID)
    expect(b.headers['x-request-id']).toMatch(UUID)
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id'])
  })

  it('an id that is too long or not a plain token is replaced, in the answer and in the log', async () => {
    const bad = ['a'.repeat(129), 'two words', 'x","level":60,"msg":"forged', '<script>', 'ünïcode', '']
    for (const id of bad) {
      const from = logLines.length
      const res = await secured.inject({ method: 'POST', url: '/api/v1/boom', headers: { 'x-request-id': id, ...bearer(ADMIN_TOKEN) }, payload: { explode: true } })
      const echoed = String(res.headers['x-request-id'])
      expect(echoed, JSON.stringify(id)).toMatch(UUID)
      expect(json(res).refuse.reason).toBe(`internal error; request id ${echoed}`)
      // Other lines may interleave (the listening host's boot report runs its own in-process requests).
      const lines = logLines.slice(from).map((l) => JSON.parse(l) as { reqId?: string; msg?: string })
      expect(lines.filter((l) => l.reqId === echoed).map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'internal error']))
      if (id) expect(logLines.slice(from).join('')).not.toContain(id)
    }
    expect(requestIdOf('a'.repeat(128))).toBe('a'.repeat(128))
    expect(requestIdOf(['one', 'two'])).toMatch(UUID)
    expect(requestIdOf(undefined)).toMatch(UUID)
  })
})
