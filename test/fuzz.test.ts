// Fuzzing every route of all three surfaces with generated bad requests: no 5xx bugs, no hangs, the right error shapes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { Client } from 'undici'
import { anyEnvelope } from '../src/http/envelope.js'
import { REFUSAL_STATUS } from '../src/http/refusal.js'
import { buildTestApp } from './helper.js'

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000)
/** 501 is chat's refusal by nature; 503 is `occupied`/`timeout` — both are answers, not bugs. */
const ALLOWED_5XX = new Set([501, 503])

let app: FastifyInstance
let client: Client
let routes: Array<{ method: string; url: string }>
let dataDir: string
beforeAll(async () => {
  // A file database, as in production: pins and runs the fuzzer stores would otherwise grow an in-memory database,
  // whose pages count in RSS and would blur the check that the host itself gives memory back.
  dataDir = mkdtempSync(join(tmpdir(), 'ncm-fuzz-'))
  app = await buildTestApp({ env: { DATABASE_PATH: join(dataDir, 'fuzz.db') } })
  // Over a real socket: light-my-request keeps memory per GET, which would hide the server's own RSS behaviour.
  client = new Client(await app.listen({ host: '127.0.0.1', port: 0 }), {
    headersTimeout: 60_000, bodyTimeout: 60_000,
  })
  const seen = new Set<string>()
  routes = app.routeTable
    .filter((r) => !r.url.includes('*') && !r.url.startsWith('/docs/static') && !r.url.startsWith('/reference/'))
    .filter((r) => !seen.has(`${r.method} ${r.url}`) && seen.add(`${r.method} ${r.url}`))
})
afterAll(async () => {
  await client.close()
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const weirdStrings = fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '-0', '', ' ', '\u0000', '../../etc/passwd', '%00', '😀'.repeat(50), 'x'.repeat(70_000), '__proto__', 'constructor')
const hugeNumbers = fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 2 ** 53, -(2 ** 31), 4_294_967_296, 1e-320)
const leaf = fc.oneof(fc.string({ maxLength: 40 }), weirdStrings, fc.integer(), hugeNumbers, fc.double(), fc.boolean(), fc.constant(null))
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('dimacs', 'formula', 'op', 'input', 'model', 'tokens', 'dataset', 'strategy', 'params', 'a', 'b', 'mode', 'content', 'digest', '__proto__')), tie('value'), { maxKeys: 6 }),
})).value

function deepNesting(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

const body = fc.oneof(
  jsonValue.map((v) => ({ payload: JSON.stringify(v) ?? 'null', type: 'application/json' })),
  fc.constantFrom(
    { payload: '{"truncated": [1, 2', type: 'application/json' },
    { payload: '', type: 'application/json' },
    { payload: deepNesting(5000), type: 'application/json' },
    { payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), type: 'application/json' },
    { payload: 'Date,Open\n2020-01-01,x', type: 'text/csv' },
    { payload: '<xml/>', type: 'application/xml' },
    { payload: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
    { payload: '{"a":1}', type: 'text/plain' },
    { payload: '{"a":1}', type: '' },
  ),
)

// Issue #13's classes, each aimed at the routes it hurts: answered as refusals (or bounded answers), never a 5xx or a stall.
type Hostile = { method: string; path: string; payload?: string; type?: string; burst?: number }
const post = (path: string, value: unknown): Hostile => ({ method: 'POST', path, payload: typeof value === 'string' ? value : JSON.stringify(value), type: 'application/json' })
const SPELLINGS = ['/sat', '//sat', 'SAT', 'Sat', '/jsonsat', '/race', '/budget', '/PACK', 'sat ', ' sat', '../sat', '%2Fsat', 'sat/', 'skills.md', '/run', 'CLI']
const amplifyingPatch = fc.record({ copies: fc.integer({ min: 1, max: 40 }), viaRun: fc.boolean(), seed: fc.string({ maxLength: 20 }) })
  .map(({ copies, viaRun, seed }): Hostile => {
    const patch = Array.from({ length: copies }, (_, i) => (i % 3 ? { op: 'copy', from: '', path: `/c${i}` } : { op: 'add', path: `/c${i}`, value: { seed } }))
    const input = { a: { seed }, patch, mode: 'json' }
    return viaRun ? post('/api/v1/run', { batch: [{ op: 'diff', input }, { op: '/diff', input }] }) : post('/api/v1/diff', input)
  })
const opSpelling = fc.record({ op: fc.constantFrom(...SPELLINGS), where: fc.constantFrom('single', 'batch', 'cli'), input: jsonValue })
  .map(({ op, where, input }): Hostile =>
    where === 'cli' ? post('/api/v1/cli', { line: `${op} --json '{}'` })
      : where === 'batch' ? post('/api/v1/run', { batch: [{ op, input: { dimacs: 'p cnf 1 1\n1 0\n' } }, { op, input }] })
        : post('/api/v1/run', { op, input }))
const deepBody = fc.record({ depth: fc.integer({ min: 9_000, max: 100_000 }), shape: fc.constantFrom('not', 'array', 'object'), path: fc.constantFrom('/api/v1/jsonsat', '/api/v1/quiz', '/api/v1/diff', '/api/v1/pin', '/api/v11/trading/backtest', '/api/v1/run') })
  .map(({ depth, shape, path }): Hostile => {
    const [open, inner, close] = shape === 'not' ? ['{"not":', '{"var":"x"}', '}'] : shape === 'array' ? ['[', '1', ']'] : ['{"a":', '1', '}']
    return post(path, `{"formula":${open.repeat(depth)}${inner}${close.repeat(depth)}}`)
  })
const hugeToken = fc.record({ size: fc.integer({ min: 100_000, max: 1_000_000 }), where: fc.constantFrom('cli-op', 'cli-flag', 'run-op', 'digest', 'key') })
  .map(({ size, where }): Hostile => {
    const token = 'q'.repeat(size)
    if (where === 'cli-op') return post('/api/v1/cli', { line: token })
    if (where === 'cli-flag') return post('/api/v1/cli', { line: `digest --content ${token}` })
    if (where === 'run-op') return post('/api/v1/run', { op: token })
    if (where === 'digest') return post('/api/v1/digest', { content: token })
    return post('/api/v1/diff', `{"a":{"${token}":1},"b":{},"mode":"json"}`)
  })
const nonFinite = fc.record({ number: fc.constantFrom('1e400', '-1e400', '1E+999', '9'.repeat(400), '-0.5e309', '123456789e300'), route: fc.constantFrom(...['/api/v1/pin', '/api/v1/diff', '/api/v1/fit', '/api/v1/kv', '/api/v1/run', '/api/v1/pack', '/api/v11/trading/backtest', '/api/v11/trading/simulate']) })
  .map(({ number, route }): Hostile => post(route, `{"json":${number},"a":${number},"b":-${number.replace(/^-/, '')},"mode":"json","items":[${number}],"capacity":1,"op":"kv","input":{"tokens":${number}}}`))
const badPercent = fc.record({ at: fc.constantFrom('/api/v1/', '/api/v11/datasets/', '/api/v6/rpc/', '/', '/admin/', '/api/v1/ops?x='), junk: fc.constantFrom('%', '%z', '%zz', '%E0%A4%A', '%C3%28', '%%', '%0', '%ff%fe', '%u0041', '%2', '%G0') })
  .map(({ at, junk }): Hostile => ({ method: 'GET', path: at + junk }))
const unmatchedFlood = fc.record({ prefix: fc.constantFrom('/api/v1/', '/api/v11/', '/api/v10/', '/api/v6/', '/', '/admin/'), name: fc.string({ minLength: 1, maxLength: 30 }), burst: fc.integer({ min: 10, max: 30 }) })
  .map(({ prefix, name, burst }): Hostile => ({ method: 'GET', path: prefix + 'nope-' + encodeURIComponent(name), burst }))
const hostile = fc.oneof(amplifyingPatch, opSpelling, deepBody, { arbitrary: hugeToken, weight: 1 }, nonFinite, badPercent, unmatchedFlood)

const pathTrick = fc.constantFrom('', '/', '//', '/..', '/%2e%2e/', '?a=1&a=2', '?__proto__[x]=1', '/%00', '/' + 'z'.repeat(3000), '?limit=-1', '?rerun=1', '#frag')
/** `arb` with probability p, otherwise undefined. */
const sometimes = <T>(arb: fc.Arbitrary<T>, p: number) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: Math.round((1 - p) * 100) }, { arbitrary: arb, weight: Math.round(p * 100) })
const oddMethod = fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')

describe(`fuzzing every route with ${TOTAL} generated bad requests`, () => {
  it('answers each without a 5xx bug, with the error shape of its surface', async () => {
    const statuses = new Map<number, number>()
    const failures: string[] = []
    const gc = (globalThis as { gc?: () => void }).gc
    const requestArb = fc.record({
      route: fc.constantFrom(...routes),
      method: sometimes(oddMethod, 1 / 8),
      trick: sometimes(pathTrick, 1 / 6),
      body,
      query: sometimes(fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 20 }), weirdStrings)), 1 / 4),
    })
    let sent = 0
    let rssStart = 0
    let memStart: NodeJS.MemoryUsage | undefined
    const marks: number[] = []
    // One request in eight is one of issue #13's hostile classes; an unmatched-route flood sends its burst at once.
    const samples = fc.sample(fc.oneof({ arbitrary: requestArb, weight: 7 }, { arbitrary: hostile.map((h) => ({ hostile: h })), weight: 1 }), { numRuns: TOTAL, seed: 20261122 })
    const hostileSent: Record<string, number> = {}
    for (const sample of samples) {
      let url: string
      let method: string
      let path: string
      const headers: Record<string, string> = {}
      let payload: string | Buffer | undefined
      if ('hostile' in sample) {
        const h = sample.hostile
        ;({ method, path } = h)
        url = path
        payload = h.payload
        if (h.type) headers['content-type'] = h.type
        const kind = h.burst ? 'unmatched flood' : `${method} ${path.split('?')[0]!.slice(0, 24)}`
        hostileSent[kind] = (hostileSent[kind] ?? 0) + 1
        if (h.burst) {
          const flood = await Promise.all(Array.from({ length: h.burst }, () => client.request({ method: 'GET', path }).then(async (r) => { await r.body.dump(); return r.statusCode })))
          for (const status of flood) if (status >= 500) failures.push(`unmatched flood ${path.slice(0, 60)} → ${status}`)
        }
      } else {
        url = sample.route.url.replace(/:([A-Za-z_]+)/g, () => encodeURIComponent('fuzz-' + Math.random().toString(36).slice(2, 6))) + (sample.trick ?? '')
        method = sample.method ?? sample.route.method
        const query = sample.query ? new URLSearchParams(sample.query).toString() : ''
        path = url + (query ? (url.includes('?') ? '&' : '?') + query : '')
        if (method !== 'GET' && method !== 'HEAD') {
          payload = sample.body.payload
          if (sample.body.type) headers['content-type'] = sample.body.type
        }
      }
      const response = await client.request({ method: method as 'GET', path, headers, body: payload })
      const res = { statusCode: response.statusCode, headers: response.headers, body: await response.body.text() }
      sent++
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
      const where = `${method} ${url.slice(0, 80)} → ${res.statusCode}`
      if (res.statusCode >= 500 && !ALLOWED_5XX.has(res.statusCode)) failures.push(`${where}: ${res.body.slice(0, 200)}`)
      // 431: Node's HTTP parser refuses a request line or headers over 16 KiB before any route (or surface) is known.
      if (res.statusCode === 431) continue
      let pathname: string
      try {
        pathname = new URL(url, 'http://fuzz.invalid').pathname
      } catch {
        pathname = url.split('?')[0]!
      }
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json')
      if ((pathname === '/api/v1' || pathname.startsWith('/api/v1/')) && method !== 'HEAD' && (json || res.statusCode >= 400)) {
        let parsed: any
        try {
          parsed = JSON.parse(res.body)
        } catch {
          failures.push(`${where}: not JSON`)
          continue
        }
        if (!anyEnvelope.safeParse(parsed).success) failures.push(`${where}: not an envelope`)
        else if (!parsed.ok) {
          if (parsed.refuse.http_status !== res.statusCode) failures.push(`${where}: refuse.http_status ${parsed.refuse.http_status}`)
          if (REFUSAL_STATUS[parsed.refuse.code as keyof typeof REFUSAL_STATUS] !== res.statusCode) failures.push(`${where}: code ${parsed.refuse.code}`)
        }
      } else if ((pathname === '/health' || /^\/api\/v(11|10|6)\//.test(pathname)) && res.statusCode >= 400 && method !== 'HEAD') {
        if (!String(res.headers['content-type']).startsWith('application/problem+json')) failures.push(`${where}: not problem+json (${res.headers['content-type']})`)
      }
      if (sent % Math.floor(TOTAL / 8) === 0) {
        gc?.()
        marks.push(process.memoryUsage().rss)
      }
      if (sent === Math.floor(TOTAL / 4)) {
        gc?.()
        memStart = process.memoryUsage()
        rssStart = memStart.rss
      }
    }
    // "Back within 10 %": give the host up to 3 s to settle (collections, allocator trimming, a worker finishing its
    // last task) and keep the lowest reading; a leak stays high however long it is given.
    let memEnd = process.memoryUsage()
    for (let waited = 0; waited < 3000 && memEnd.rss >= rssStart * 1.1; waited += 250) {
      await new Promise((r) => setTimeout(r, 250))
      gc?.()
      const now = process.memoryUsage()
      if (now.rss < memEnd.rss) memEnd = now
    }
    const rssEnd = memEnd.rss
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)}`
    console.log(`fuzz RSS every eighth: ${marks.map(mib).join(' ')} MiB`)
    console.log(`fuzz memory: heapUsed ${mib(memStart!.heapUsed)} → ${mib(memEnd.heapUsed)} MiB, external ${mib(memStart!.external)} → ${mib(memEnd.external)} MiB, arrayBuffers ${mib(memStart!.arrayBuffers)} → ${mib(memEnd.arrayBuffers)} MiB`)
    const table = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(', ')
    console.log(`fuzz hostile classes (#13): ${Object.entries(hostileSent).map(([k, n]) => `${k} × ${n}`).join(', ')}`)
    console.log(`fuzz: ${sent} requests over ${routes.length} routes; statuses ${table}; RSS after a quarter (warm-up) ${(rssStart / 2 ** 20).toFixed(1)} MiB, at end ${(rssEnd / 2 ** 20).toFixed(1)} MiB`)
    expect(failures.slice(0, 20)).toEqual([])
    expect(sent).toBe(TOTAL)
    expect(rssEnd).toBeLessThan(rssStart * 1.1)
  }, 1_200_000)
})
