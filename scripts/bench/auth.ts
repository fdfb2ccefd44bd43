// bench:auth — what a credential costs per request: GET /api/v1/health without one, with the admin token, and with a
// grant (read from the database on every request: one statement by token hash, no cache). Rounds alternate the order
// so drift on a shared machine hits each alike. DATABASE_URL=postgres://… runs the host on PostgreSQL instead.
import { request } from 'undici'
import { load, median, spawnServer, stop } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef'

async function main() {
  const { child, info } = await spawnServer<{ port: number }>('scripts/bench/serve-app.ts', {
    ADMIN_TOKEN, MILL_THREADS: '1', RATE_LIMIT_PER_MIN: '0',
  })
  const base = `http://127.0.0.1:${info.port}`
  try {
    const issued = await request(`${base}/api/v1/grant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'bench', scopes: ['pin:write'], ttl_s: 3600 }),
    })
    const grant = ((await issued.body.json()) as { data: { token: string } }).data.token
    const cases: Record<string, Record<string, string> | undefined> = {
      anonymous: undefined,
      admin: { authorization: `Bearer ${ADMIN_TOKEN}` },
      grant: { authorization: `Bearer ${grant}` },
    }
    const names = Object.keys(cases)
    const url = `${base}/api/v1/health`
    const rps = Object.fromEntries(names.map((n) => [n, [] as number[]]))
    const p99 = Object.fromEntries(names.map((n) => [n, [] as number[]]))
    for (const name of names) await load(url, { duration: 1, connections: CONNECTIONS, headers: cases[name] })
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 ? [...names].reverse() : names) {
        const r = await load(url, { duration: SECONDS, connections: CONNECTIONS, headers: cases[name] })
        if (r.errors || r.non2xx) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx answers`)
        rps[name]!.push(r.requestsPerSec)
        p99[name]!.push(r.p99)
      }
    }
    const base0 = median(rps.anonymous!)
    console.log(`GET /api/v1/health, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS} s, store: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`)
    for (const name of names) {
      const m = median(rps[name]!)
      console.log(`${name.padEnd(10)} ${m.toFixed(0).padStart(7)} req/s (median)  p99 ${median(p99[name]!).toFixed(1)} ms  ${((m / base0 - 1) * 100).toFixed(1)}% vs anonymous`)
    }
  } finally {
    await stop(child)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
