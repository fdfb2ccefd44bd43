// A run appears whole or not at all, across a crash: the real server is SIGKILLed while it writes a large backtest's
// results (the test watches the SQLite file and kills the process as soon as the run's row and part of its trades or
// curve are there), restarted on the same data directory, and then every reader of the run — its trades and curve
// (paged and CSV), the run with ?include=trades, the report, Monte Carlo — answers either the whole results or
// "not stored", never a part, until the host's sweep has written them again whole.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteReader, type SqliteReader } from '../src/store/test-sqlite-reader.js'
import { afterAll, describe, expect, it } from 'vitest'
import { INLINE_TRADES_MAX } from '../src/engines/trading/answer-caps.js'
import { request } from 'undici'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'

/** The seeded 100k-bar intraday dataset; a fast crossing gives it tens of thousands of trades (a hundred batches). */
const DATASET = 'SYN-15M'
const BARS = 100_000
/** Backtests tried until a kill lands mid-write (each one with other parameters: a new run). */
const ATTEMPTS = 6
const LEASE_MS = 1000
/** Curve chunks of a whole run (2048 points each). */
const CHUNKS = Math.ceil(BARS / 2048)

interface Partial {
  id: number
  trades: number
  chunks: number
}

describe('a run\'s results across a crash while they are written', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ncm-run-crash-'))
  let server: ServerProcess | null = null
  afterAll(async () => {
    if (server) await stopServer(server)
    rmSync(dataDir, { recursive: true, force: true })
  })

  const boot = async () => {
    const port = await freePort()
    const proc = startServer({
      DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000',
      RUN_RESULTS_LEASE_MS: String(LEASE_MS),
    }, { compiled: true })
    server = proc
    await waitForHealth(`http://127.0.0.1:${port}/api/v1/health`, { server: proc, timeoutMs: 120_000 })
    return { proc, base: `http://127.0.0.1:${port}` }
  }

  const get = async (base: string, path: string, accept = 'application/json') => {
    const res = await request(`${base}${path}`, { headers: { accept }, headersTimeout: 60_000, bodyTimeout: 60_000 })
    const text = await res.body.text()
    return { status: res.statusCode, text, json: () => JSON.parse(text) as any }
  }

  /**
   * Watches the store (another connection on the WAL file) for the newest run with part of its results written: in
   * the `trades` phase (some trades, no curve yet) or the `curve` phase (every trade, part of the curve).
   */
  function watchForPartial(db: SqliteReader, after: number, phase: 'trades' | 'curve', stop: () => boolean): Promise<Partial | null> {
    const newest = `SELECT r.id, (SELECT count(*) FROM run_trades t WHERE t.run_id = r.id) AS trades,
      (SELECT count(*) FROM run_equity e WHERE e.run_id = r.id) AS chunks FROM runs r WHERE r.id > ? ORDER BY r.id DESC LIMIT 1`
    return new Promise((resolve) => {
      const look = () => {
        if (stop()) return resolve(null)
        const row = db.get<Partial>(newest, after)
        const partial = row && (phase === 'trades' ? row.trades > 0 && row.chunks === 0 : row.chunks > 0 && row.chunks < CHUNKS)
        if (partial) return resolve(row)
        setImmediate(look)
      }
      look()
    })
  }

  /** Backtests (each with other parameters: a new run) until the server is killed in `phase` of writing one: that run. */
  async function killMidWrite(current: { proc: ServerProcess; base: string }, db: SqliteReader, phase: 'trades' | 'curve', slow: number): Promise<Partial> {
    const lastRun = Number(db.get<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM runs')!.id)
    let after = lastRun
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let answered = false
      const body = JSON.stringify({ dataset: DATASET, strategy: 'sma_cross', params: { fast: 2, slow: slow + attempt } })
      const posted = request(`${current.base}/api/v11/trading/backtest`, {
        method: 'POST', body, headers: { 'content-type': 'application/json' }, headersTimeout: 120_000, bodyTimeout: 120_000,
      }).then(async (res) => {
        answered = true
        return res.statusCode === 200 ? ((await res.body.json()) as { run: { id: number } }).run.id : (await res.body.text(), null)
      }, () => null)
      const partial = await watchForPartial(db, after, phase, () => answered)
      if (partial) {
        current.proc.child.kill('SIGKILL')
        expect((await current.proc.exited).signal).toBe('SIGKILL')
        await posted
        return partial
      }
      after = Math.max(after, (await posted) ?? 0)
    }
    throw new Error(`no kill landed in the ${phase} phase of writing a run in ${ATTEMPTS} backtests`)
  }

  /** Reads the run every way until its results are whole; answers what was seen on the way. */
  async function readUntilWhole(base: string, id: number) {
    const run = (await get(base, `/api/v11/runs/${id}`)).json()
    // The statistics count closed trades; the stored list ends with the open one, if any.
    const trades = run.stats.trades as number
    const whole = (n: number) => n === trades || n === trades + 1
    const partialAnswers: string[] = []
    let notStored = 0
    const deadline = Date.now() + 60_000
    for (;;) {
      const page = await get(base, `/api/v11/runs/${id}/trades?limit=1`)
      const curve = await get(base, `/api/v11/runs/${id}/equity?limit=1`)
      const inline = (await get(base, `/api/v11/runs/${id}?include=trades`)).json()
      const report = (await get(base, `/api/v11/runs/${id}/report`, 'text/html')).text
      const shownCount = /(?:of|All) (\d+) trades/.exec(report)?.[1]
      const states = [page, curve].map((r) => (r.status === 200 ? 'whole' : r.json().results === 'not_stored' ? 'not_stored' : `other ${r.status}: ${r.text}`))
      if (page.status === 200 && !whole(page.json().total)) partialAnswers.push(`trades page total ${page.json().total} of ${trades}`)
      if (curve.status === 200 && curve.json().total !== BARS) partialAnswers.push(`curve total ${curve.json().total} of ${BARS}`)
      // Inline, a run's trades are its first INLINE_TRADES_MAX (the rest paged): whole means all of those.
      if (!whole(inline.trades.length) && !(inline.trades.length === INLINE_TRADES_MAX && trades >= INLINE_TRADES_MAX)) {
        partialAnswers.push(`?include=trades gave ${inline.trades.length} of ${trades}`)
      }
      if (shownCount !== undefined && !whole(Number(shownCount))) partialAnswers.push(`report shows ${shownCount} of ${trades}`)
      const monteCarlo = await get(base, `/api/v11/runs/${id}/monte-carlo?paths=10`)
      if (monteCarlo.status === 200 && monteCarlo.json().trades !== trades) partialAnswers.push(`Monte Carlo resampled ${monteCarlo.json().trades} of ${trades} closed trades`)
      const others = states.filter((x) => x.startsWith('other'))
      if (others.length > 0) return { trades, partialAnswers, notStored, others }
      if (states.every((x) => x === 'whole')) break
      notStored++
      if (Date.now() > deadline) throw new Error(`the results of run ${id} were not written again within 60 s`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return { trades, partialAnswers, notStored, others: [] as string[] }
  }

  it('answers every reader whole or not stored after a SIGKILL mid-write (in its trades, then in its curve), and the sweep makes it whole', async () => {
    requireCompiledServer()
    let current = await boot()
    const db = openSqliteReader(join(dataDir, 'ncm-hub.sqlite'))
    try {
      for (const [phase, slow] of [['trades', 3], ['curve', 20]] as const) {
        const killed = await killMidWrite(current, db, phase, slow)
        current = await boot()
        const id = killed.id
        const seen = await readUntilWhole(current.base, id)
        console.log(`run-results crash (${phase}): killed with run ${id} at ${killed.trades} trades and ${killed.chunks} of ${CHUNKS} curve chunks written; ` +
          `${seen.notStored} reads answered not stored, then ${seen.others.length > 0 ? "neither whole nor not stored" : "whole"} (${seen.trades} closed trades)`)
        expect(seen.partialAnswers, `run ${id}, killed in its ${phase}`).toEqual([])
        expect(seen.others, `run ${id}, killed in its ${phase}: answers neither whole nor not stored`).toEqual([])
        // Whole: every closed trade in order, and at most one open one, last; every point of the curve.
        const lines = (await get(current.base, `/api/v11/runs/${id}/trades`, 'text/csv')).text.trim().split('\n').slice(1)
        expect(lines.filter((l) => l.endsWith(',false'))).toHaveLength(seen.trades)
        expect(lines.length - seen.trades).toBeLessThanOrEqual(1)
        expect(lines.map((l) => Number(l.split(',')[0]))).toEqual(lines.map((_l, k) => k + 1))
        expect((await get(current.base, `/api/v11/runs/${id}/equity`, 'text/csv')).text.trim().split('\n')).toHaveLength(BARS + 1)
        const rows = db.get('SELECT (SELECT count(*) FROM run_trades WHERE run_id = ?) AS trades, (SELECT count(*) FROM run_equity WHERE run_id = ?) AS chunks', id, id)
        expect(rows).toEqual({ trades: lines.length, chunks: CHUNKS })
      }
    } finally {
      db.close()
    }
    current.proc.child.kill('SIGTERM')
    expect((await current.proc.exited).code).toBe(0)
  }, 300_000)
})
