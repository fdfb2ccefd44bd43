// The hostile inputs of issue #13 (bench:hostile sends each alone) and the hostile client of bench:load: one connection
// sending the worst inputs of items 1–3 in a loop, and the 150 × 15.5 MB /digest burst of item 11. Every answer is
// tallied by status and refusal code.
import { createHash } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { request } from 'undici'
import { rssMiB } from './lib.js'
import { EQUITY_MAX_POINTS } from '../../src/engines/trading/answer-caps.js'

interface Signal {
  stopping: boolean
}

const json = { 'content-type': 'application/json' }

export interface HostileRequest {
  name: string
  /** A path, or one per send (n counts the sends of this input). */
  path: string | ((n: number) => string)
  method: 'GET' | 'POST'
  body?: string | Buffer
  type?: string
  /** bench:hostile's alone: it needs prepareHostile's datasets, or grows the database by 12 MB a send. */
  soloOnly?: boolean
  /** Headers besides the content type (MCP's Accept). */
  headers?: Record<string, string>
  /** Copies sent at once over as many connections, a burst per send (default 1). */
  parallel?: number
}

export const pathOf = (r: HostileRequest, n: number): string => (typeof r.path === 'string' ? r.path : r.path(n))

/**
 * One send of a hostile input (a burst of `parallel` copies): the first answer's status, and its text when `read` (else
 * every body is dropped unread: the bench's health probe shares this process, and decoding megabytes would delay it).
 */
/**
 * A fixed body encoded once: undici encodes a string body on every send (10–20 ms for 14 MB of clause arrays, on the
 * bench's own loop, where its health probe runs: the probe's p99 was the client's). A body made per send (a getter) as it comes.
 */
const encodedBodies = new WeakMap<HostileRequest, Buffer>()
function bodyOf(r: HostileRequest): string | Buffer | undefined {
  const own = Object.getOwnPropertyDescriptor(r, 'body')
  if (!own || own.get || typeof own.value !== 'string') return r.body
  let bytes = encodedBodies.get(r)
  if (!bytes) encodedBodies.set(r, (bytes = Buffer.from(own.value)))
  return bytes
}

export async function sendHostile(base: string, r: HostileRequest, n: number, read = true): Promise<{ statusCode: number; text: string }> {
  const body = bodyOf(r)
  const one = async () => {
    const res = await request(`${base}${pathOf(r, n)}`, {
      method: r.method, body, headers: { ...(body ? { 'content-type': r.type ?? json['content-type'] } : {}), ...r.headers },
      headersTimeout: 60_000, bodyTimeout: 60_000,
    })
    if (read) return { statusCode: res.statusCode, text: await res.body.text() }
    await res.body.dump()
    return { statusCode: res.statusCode, text: '' }
  }
  const answers = await Promise.all(Array.from({ length: r.parallel ?? 1 }, one))
  return answers[0]!
}

/** The largest import accepted (CSV_MAX_ROWS' default): 250k rows of bars in cents, 11 MB. */
const LARGEST_IMPORT_ROWS = 250_000

function largestCsv(): string {
  const rows = ['Date,Open,High,Low,Close,Volume']
  for (let i = 0; i < LARGEST_IMPORT_ROWS; i++) {
    const open = 100 + (i % 500) / 100
    rows.push(`${946684800 + i * 60},${open.toFixed(2)},${(open + 0.5).toFixed(2)},${(open - 0.5).toFixed(2)},${(open + 0.1).toFixed(2)},${1000 + (i % 7)}`)
  }
  return rows.join('\n') + '\n'
}

/** Two datasets of the largest import: with a bars cache smaller than one of them, every backtest on them misses it. */
export const HOSTILE_DATASETS = ['HOSTILE-A', 'HOSTILE-B']

/** Imports HOSTILE_DATASETS (a repeat finds them there: created false). */
export async function prepareHostile(base: string): Promise<void> {
  const csv = largestCsv()
  for (const symbol of HOSTILE_DATASETS) {
    const res = await request(`${base}/api/v11/datasets?symbol=${symbol}&timeframe=1m`, {
      method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv, headersTimeout: 120_000, bodyTimeout: 120_000,
    })
    const text = await res.body.text()
    if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`importing ${symbol}: ${res.statusCode} ${text.slice(0, 300)}`)
  }
}

/** The most variables a header may declare (SAT_LIMITS.maxVars): a model lists each. */
const mostVars = 'p cnf 100000 1\n1 0\n'
const manyVars = (count: number) => Array.from({ length: count }, (_, i) => ({ var: `v${i}` }))

/**
 * A request whose body differs on every send (each read of `body` makes the next one): the host answers a repeated
 * job or pin from what it stored, so only a new input pays the whole cost each time.
 */
function freshBody(request: Omit<HostileRequest, 'body'>, make: (n: number) => string): HostileRequest {
  let n = 0
  return Object.defineProperty({ ...request }, 'body', { get: () => make(n++), enumerable: true }) as HostileRequest
}

/** One JSON-RPC message to /mcp without a session (answered as plain JSON). */
const mcpCall = (name: string, method: string, params: unknown, soloOnly = false): HostileRequest => ({
  name, method: 'POST', path: '/mcp', soloOnly, headers: { accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
})

/** Digits of the count stamped at the head of a stampedBody's text. */
const STAMP_DIGITS = 12

/**
 * A fresh text body of `chars` characters without building it again: its JSON is written as bytes once, and each send
 * stamps the next count over the text's leading digits. Built per send (JSON.stringify of 15 MB and its encoding,
 * 50–80 ms), it held the bench's own loop, where the health probe runs, and that wait was counted as the host's.
 */
function stampedBody(request: Omit<HostileRequest, 'body'>, member: string, chars: number, tail = ''): HostileRequest {
  const bytes = Buffer.from(JSON.stringify({ [member]: `${'0'.repeat(STAMP_DIGITS)} ${'p'.repeat(chars)}${tail}` }))
  const at = bytes.indexOf('0'.repeat(STAMP_DIGITS))
  let n = 0
  const stamp = () => {
    bytes.write(String(n++).padStart(STAMP_DIGITS, '0'), at, 'latin1')
    return bytes
  }
  return Object.defineProperty({ ...request }, 'body', { get: stamp, enumerable: true }) as HostileRequest
}

/** The worst single requests of issue #13 items 1–3, built once (each body is sent as is, again and again). */
export function hostileRequests(): HostileRequest[] {
  const depth = 1_000_000
  // The first 15 MB pin sent (stampedBody's count 0): the read-back row asks for it by digest.
  const firstLargePin = `${'0'.repeat(STAMP_DIGITS)} ${'p'.repeat(15_000_000)}`
  const firstPinDigest = `sha256:${createHash('sha256').update(firstLargePin).digest('hex')}`
  // JSON_MAX_VALUES is 150k, an object member counting 4: the widest object a body may hold has ~37k keys.
  const wideObject = Object.fromEntries(Array.from({ length: 37_490 }, (_, i) => [`k${i}`, i]))
  // Fresh bodies are spliced from text written once: the probe shares this process's loop, and writing a 37k-key or
  // 30k-variable body again for each request (10–30 ms) delayed its health checks as much as the host did.
  const wideText = JSON.stringify(wideObject)
  const manyVarsText = JSON.stringify(manyVars(29_990))
  const clauses = Array.from({ length: 600_000 }, (_, i) => [i + 1, -(i + 2), i + 3])
  const csvRows = ['Date,Open,High,Low,Close,Volume']
  for (let i = 0; i < 880_000; i++) csvRows.push(`${946684800 + i * 60},1,1,1,1`) // 880k rows in 16 MB: epoch seconds
  const backtestOf = (dataset: string) => JSON.stringify({
    dataset, strategy: 'sma_cross', params: { fast: 5, slow: 20 }, from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z',
  })
  return [
    { name: 'diff: 30 whole-document copies', method: 'POST', path: '/api/v1/diff',
      body: JSON.stringify({ a: { s: 'x' }, patch: Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` })), mode: 'json' }) },
    { name: 'run: op spellings', method: 'POST', path: '/api/v1/run',
      body: JSON.stringify({ batch: ['/sat', '//sat', 'SAT', '/jsonsat'].map((op) => ({ op, input: op.endsWith('jsonsat') ? { formula: { var: 'x' } } : { dimacs: 'p cnf 1 1\n1 0\n' } })) }) },
    { name: 'cli: 15 MB unknown op name', method: 'POST', path: '/api/v1/cli', body: JSON.stringify({ line: 'q'.repeat(15_000_000) }) },
    { name: 'system/verify', method: 'GET', path: '/api/v11/system/verify' },
    { name: 'jsonsat: 1M-deep not chain', method: 'POST', path: '/api/v1/jsonsat', body: `{"formula":${'{"not":'.repeat(depth)}{"var":"x"}${'}'.repeat(depth)}}` },
    { name: 'clauses: 13 MB JSON clause arrays', method: 'POST', path: '/api/v1/clauses', body: JSON.stringify({ clauses }) },
    { name: 'quiz: 13 MB JSON clause arrays', method: 'POST', path: '/api/v1/quiz', body: JSON.stringify({ clauses, assignment: { 1: true } }) },
    { name: 'datasets: 880k-row CSV', method: 'POST', path: '/api/v11/datasets?symbol=HOSTILE&timeframe=1m', body: csvRows.join('\n') + '\n', type: 'text/csv' },
    { name: 'datasets: 250k-row CSV, a new symbol', method: 'POST', path: (n) => `/api/v11/datasets?symbol=WIDE-${process.pid}-${n}&timeframe=1m`,
      body: largestCsv(), type: 'text/csv', soloOnly: true },
    { name: 'backtest: bars-cache miss, 250k bars', method: 'POST', path: '/api/v11/trading/backtest', body: backtestOf(HOSTILE_DATASETS[0]!), soloOnly: true },
    // Accepted, not refused: the largest bodies the limits let through still cost the loop per request.
    { name: 'clauses: 150k values, accepted', method: 'POST', path: '/api/v1/clauses', body: JSON.stringify({ clauses: clauses.slice(0, 37_490) }) },
    { name: 'sat: 14 MB DIMACS, accepted', method: 'POST', path: '/api/v1/sat',
      body: JSON.stringify({ dimacs: 'c pad\n'.repeat(2_000_000) + 'p cnf 3 1\n1 2 3 0\n' }), soloOnly: true },
    // Accepted, small requests with big answers: a DIMACS header may declare 100k variables, each listed in the answer.
    { name: 'clauses: 100k-var header, accepted', method: 'POST', path: '/api/v1/clauses', body: JSON.stringify({ dimacs: mostVars }) },
    { name: 'run: 5 x clauses 100k-var, accepted', method: 'POST', path: '/api/v1/run',
      body: JSON.stringify({ batch: Array.from({ length: 5 }, () => ({ op: 'clauses', input: { dimacs: mostVars } })) }) },
    // Accepted, small inputs worked and answered on the loop (STILL_WRITTEN_ON_THE_LOOP), their answers the largest such
    // a body under 64 KiB gets: a 30-byte header declaring the most variables the loop works; every unit falsified.
    { name: 'clauses: 16,384-var header on the loop, accepted', method: 'POST', path: '/api/v1/clauses', body: JSON.stringify({ dimacs: 'p cnf 16384 1\n1 0\n', max_listed: 10_000 }) },
    { name: 'quiz: 4,500 falsified units on the loop, accepted', method: 'POST', path: '/api/v1/quiz',
      body: JSON.stringify({ dimacs: `p cnf 4500 4500\n${Array.from({ length: 4_500 }, (_, i) => `${i + 1} 0`).join('\n')}\n`, assignment: Array.from({ length: 4_500 }, (_, i) => -(i + 1)), max_listed: 10_000 }) },
    // Accepted, inputs too wide for the loop inside a batch, a command line and an MCP call (120–150k values): read in
    // the mill from their bytes, as their routes read such a body (issue #30 item 1).
    { name: 'run: a clauses job of 120k values, accepted', method: 'POST', path: '/api/v1/run', body: JSON.stringify({ op: 'clauses', input: { clauses: clauses.slice(0, 30_000) } }) },
    { name: 'cli: clauses --json of 120k values, accepted', method: 'POST', path: '/api/v1/cli', body: JSON.stringify({ line: `clauses --json '${JSON.stringify({ clauses: clauses.slice(0, 30_000) })}'` }) },
    mcpCall('mcp: clauses tool of 150k values, accepted', 'tools/call', { name: 'clauses', arguments: { clauses: clauses.slice(0, 37_490) } }),
    freshBody({ name: 'sat: 100k-var header model, accepted', method: 'POST', path: '/api/v1/sat', soloOnly: true },
      (n) => JSON.stringify({ dimacs: `c ${n}\n${mostVars}` })),
    freshBody({ name: 'jsonsat: and of 29,990 vars, accepted', method: 'POST', path: '/api/v1/jsonsat', soloOnly: true },
      (n) => `{"formula":{"and":[{"var":"n${n}"},${manyVarsText.slice(1)}}}`),
    // Accepted, large bodies whose cost on the loop grows with them.
    freshBody({ name: 'pin: 37k-key JSON, accepted', method: 'POST', path: '/api/v1/pin', soloOnly: true },
      (n) => `{"json":{"n":${n},${wideText.slice(1)}}`),
    stampedBody({ name: 'pin: 15 MB content, accepted', method: 'POST', path: '/api/v1/pin', soloOnly: true }, 'content', 15_000_000),
    // One character beyond Latin-1 makes the whole text two bytes a character in memory: twice the bytes to clone.
    stampedBody({ name: 'pin: 15 MB two-byte text, accepted', method: 'POST', path: '/api/v1/pin', soloOnly: true }, 'content', 15_000_000, '€'),
    { name: 'pin: read a 15 MB pin back, accepted', method: 'POST', path: '/api/v1/pin', soloOnly: true,
      body: JSON.stringify({ digest: firstPinDigest }) },
    { name: 'pin: list after 15 MB pins, accepted', method: 'GET', path: '/api/v1/admin/pins?limit=500', soloOnly: true },
    { name: 'diff: json 37k keys vs {}, accepted', method: 'POST', path: '/api/v1/diff', body: JSON.stringify({ a: wideObject, b: {}, mode: 'json' }) },
    { name: 'diff: json 11k-add patch, accepted', method: 'POST', path: '/api/v1/diff',
      body: JSON.stringify({ a: {}, patch: Array.from({ length: 11_000 }, (_, i) => ({ op: 'add', path: `/k${i}`, value: i })), mode: 'json' }) },
    { name: 'digest: 15 MB x 7 algos, accepted', method: 'POST', path: '/api/v1/digest',
      body: JSON.stringify({ content: 'd'.repeat(15_000_000), algorithms: ['sha256', 'sha512', 'sha384', 'sha1', 'md5', 'sha3-256', 'blake2b512'] }) },
    { name: 'clauses: 1M unit clauses, accepted', method: 'POST', path: '/api/v1/clauses',
      body: JSON.stringify({ dimacs: 'p cnf 100000 1000000\n' + Array.from({ length: 1_000_000 }, (_, i) => `${(i % 100_000) + 1} 0`).join('\n'), max_listed: 10_000 }) },
    { name: 'quiz: formula of 29,990 vars, accepted', method: 'POST', path: '/api/v1/quiz',
      body: JSON.stringify({ formula: { and: manyVars(29_990) }, assignment: {}, max_listed: 10_000 }) },
    { name: `backtest: ${EQUITY_MAX_POINTS} equity points (the cap), accepted`, method: 'POST', path: '/api/v11/trading/backtest', soloOnly: true,
      body: JSON.stringify({ dataset: HOSTILE_DATASETS[1], strategy: 'sma_cross', params: { fast: 5, slow: 20 }, include: ['equity'], equity_points: EQUITY_MAX_POINTS }) },
    { name: 'backtest: 250k-bar equity and trades (capped), accepted', method: 'POST', path: '/api/v11/trading/backtest', soloOnly: true,
      body: JSON.stringify({ dataset: HOSTILE_DATASETS[1], strategy: 'sma_cross', params: { fast: 5, slow: 20 }, include: ['equity', 'trades'] }) },
    // Large answers through the other doors: the admin read of a pin, MCP (whose SDK writes a message at once), /run.
    { name: 'admin: read a 15 MB pin back, accepted', method: 'GET', path: `/api/v1/admin/pins/${firstPinDigest}`, soloOnly: true },
    mcpCall('mcp: pin tool reads 15 MB back, linked', 'tools/call', { name: 'pin', arguments: { digest: firstPinDigest } }, true),
    mcpCall('mcp: 15 MB pin resource, refused', 'resources/read', { uri: `ncm://pins/${firstPinDigest}` }, true),
    mcpCall('mcp: backtest 250k-bar equity, linked', 'tools/call', {
      name: 'trading_backtest', arguments: { dataset: HOSTILE_DATASETS[1], strategy: 'sma_cross', params: { fast: 5, slow: 20 }, include: ['equity', 'trades'] },
    }, true),
    { ...mcpCall('mcp: batch of 100 openapi calls, refused', 'tools/call', { name: 'openapi', arguments: {} }),
      body: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'openapi', arguments: {} } }))) },
    { name: 'run: 64 openapi jobs, accepted', method: 'POST', path: '/api/v1/run', body: JSON.stringify({ batch: Array.from({ length: 64 }, () => ({ op: 'openapi' })) }) },
    // Bursts: one client's connections at once, each answer's cost in the same poll of the sockets.
    { name: 'openapi.json x30 at once, accepted', method: 'GET', path: '/api/v1/openapi.json', parallel: 30 },
    { name: 'docs/json x30 at once, accepted', method: 'GET', path: '/docs/json', parallel: 30 },
    { name: 'docs/yaml x30 at once, accepted', method: 'GET', path: '/docs/yaml', parallel: 30 },
    { name: 'command-center x30 at once, accepted', method: 'GET', path: '/command-center', parallel: 30 },
    { ...mcpCall('mcp: tools/list x30 at once, accepted', 'tools/list', {}), parallel: 30 },
    { name: 'dataset 500-bar page x30 at once, accepted', method: 'GET', path: `/api/v11/datasets/${HOSTILE_DATASETS[1]}?limit=500`, parallel: 30, soloOnly: true },
  ]
}

/** One client sending the hostile requests in turn until stopped; answers tallied as `<name>: <status> <code>`. */
export function attack(base: string, signal: Signal) {
  // bench:load's mix leaves out the store's inputs (bench:hostile sends them on a file database prepared for them).
  const requests = hostileRequests().filter((r) => !r.soloOnly)
  const outcomes: Record<string, number> = {}
  const tally = (key: string) => { outcomes[key] = (outcomes[key] ?? 0) + 1 }
  const done = (async () => {
    for (let i = 0; !signal.stopping; i++) {
      const r = requests[i % requests.length]!
      try {
        const res = await sendHostile(base, r, i)
        const text = res.text
        let code = ''
        try {
          const parsed = JSON.parse(text) as { refuse?: { code?: string }; code?: string }
          code = parsed.refuse?.code ?? parsed.code ?? ''
        } catch {
          code = 'unparsed'
        }
        tally(`${r.name}: ${res.statusCode}${code ? ` ${code}` : ''}`)
      } catch (err) {
        tally(`${r.name}: socket error ${(err as Error).message}`)
      }
    }
  })()
  return { outcomes, done }
}

/**
 * Item 11: `count` concurrent /digest bodies of 15.5 MB. RSS is read from /proc before, at the end of the burst and
 * after `settleMs`, with the answers tallied (admitted ones are hashed, the rest refused `occupied` unread).
 */
export async function digestBurst(base: string, pid: number, count: number, settleMs: number) {
  const body = JSON.stringify({ content: 'd'.repeat(15_500_000) })
  const before = rssMiB(pid)
  let peak = before ?? 0
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid) ?? 0) }, 50)
  const outcomes: Record<string, number> = {}
  const started = performance.now()
  await Promise.all(Array.from({ length: count }, async () => {
    let key: string
    try {
      const res = await request(`${base}/api/v1/digest`, { method: 'POST', headers: json, body, headersTimeout: 120_000, bodyTimeout: 120_000 })
      const parsed = (await res.body.json()) as { refuse?: { code: string } | null }
      key = `${res.statusCode}${parsed.refuse ? ` ${parsed.refuse.code}` : ''}`
    } catch (err) {
      key = `socket error (${(err as Error & { code?: string }).code ?? (err as Error).message})`
    }
    outcomes[key] = (outcomes[key] ?? 0) + 1
  }))
  const seconds = (performance.now() - started) / 1000
  const atEnd = rssMiB(pid)
  await new Promise((r) => setTimeout(r, settleMs))
  clearInterval(sampler)
  return { before, peak, atEnd, settled: rssMiB(pid), seconds, outcomes }
}

/**
 * Inputs that hold rather than send (issue #30 item 3): sockets one client opens and leaves, never reading the answers or
 * sending a body a byte at a time. `open` starts them; `close` reads what each got (the status line, or `open` when the
 * host has not answered or ended it) and closes them.
 */
export interface HoldingInput {
  name: string
  open(base: string): Promise<{ close(): Promise<Record<string, number>> }>
}

async function rawSocket(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base)
  const socket = connect(Number(port), hostname)
  await new Promise((r) => socket.once('connect', r))
  socket.on('error', () => undefined)
  return socket
}

/** The first bytes each socket read, kept as they arrive (a socket the host has closed may be reset before we look). */
const heads = new WeakMap<Socket, string>()
function keepHead(socket: Socket) {
  heads.set(socket, '')
  socket.on('data', (chunk: Buffer) => { const head = heads.get(socket)!; if (head.length < 64) heads.set(socket, head + chunk.toString('latin1')) })
}

/** Each socket's status line (what it holds so far), then closed by us. */
async function statusesOf(sockets: Socket[]): Promise<Record<string, number>> {
  const tally: Record<string, number> = {}
  await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => {
    if (!heads.has(socket)) keepHead(socket)
    const done = () => {
      const head = heads.get(socket)!
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 'open'
      tally[status] = (tally[status] ?? 0) + 1
      socket.destroy()
      resolve()
    }
    socket.resume()
    // What the kernel holds arrives at once; a socket still open after that is one the host holds.
    setTimeout(done, 200)
  })))
  return tally
}

/** A finished backtest job whose answer is megabytes (250k bars: every bar's equity, every trade): its id. */
export async function finishedLargeJob(base: string): Promise<string> {
  const res = await request(`${base}/api/v11/trading/backtest`, {
    method: 'POST', headers: { ...json, prefer: 'respond-async' },
    body: JSON.stringify({ dataset: HOSTILE_DATASETS[1], strategy: 'sma_cross', params: { fast: 2, slow: 5 }, include: ['equity', 'trades'] }),
  })
  const { id } = (await res.body.json()) as { id: string }
  for (;;) {
    const state = ((await (await request(`${base}/api/v11/jobs/${id}`)).body.json()) as { state: string }).state
    if (state === 'succeeded') return id
    if (state !== 'queued' && state !== 'running') throw new Error(`the large job ended ${state}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export function holdingInputs(jobId: string): HoldingInput[] {
  return [
    {
      name: 'events x100 of a large answer, unread',
      async open(base) {
        const sockets: Socket[] = []
        for (let i = 0; i < 100; i++) {
          const socket = await rawSocket(base)
          socket.pause()
          socket.write(`GET /api/v11/jobs/${jobId}/events HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`)
          sockets.push(socket)
        }
        return { close: () => statusesOf(sockets) }
      },
    },
    {
      name: 'digest x8, a body byte per 100 ms',
      async open(base) {
        const sockets = await Promise.all(Array.from({ length: 8 }, () => rawSocket(base)))
        for (const socket of sockets) {
          keepHead(socket)
          socket.write(`POST /api/v1/digest HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 15000000\r\n\r\n{"content":"`)
        }
        // Dripped until the host answers (a write after its close would reset the socket and lose the answer).
        const drip = setInterval(() => { for (const socket of sockets) if (!socket.destroyed && heads.get(socket) === '') socket.write('x') }, 100)
        return { close: async () => { clearInterval(drip); return statusesOf(sockets) } }
      },
    },
  ]
}
