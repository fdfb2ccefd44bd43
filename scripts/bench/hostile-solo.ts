// bench:hostile — issue #13's "health p99 under 50 ms whatever one client sends", measured without the noise of a mix:
// the host runs in its own process; for each of the worst single inputs (bench:load's hostile set) one client sends it
// again and again for a few seconds while a monitor probes GET /api/v1/health every 20 ms. A calm stretch with no
// attacker, measured in the same run before each input, is the baseline.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finishedLargeJob, holdingInputs, hostileRequests, prepareHostile, sendHostile, type HostileRequest } from './hostile.js'
import { rssMiB, spawnServer, stop } from './lib.js'
import { probeHealth, quantile, type Signal } from './saturate.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const PROBE_MS = 20
/** Comma-separated parts of input names: only those inputs (all when unset). */
const ONLY = process.env.BENCH_ONLY

const ascending = (xs: number[]) => [...xs].sort((a, b) => a - b)

async function stretch(base: string, attack?: HostileRequest) {
  const signal: Signal = { stopping: false }
  const probe = probeHealth(base, signal, PROBE_MS)
  const statuses: Record<string, number> = {}
  const attacker = (async () => {
    for (let n = 0; attack && !signal.stopping; n++) {
      const res = await sendHostile(base, attack, n, false).catch((err: Error) => ({ statusCode: `socket error ${err.message}` }))
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
    }
  })()
  await new Promise((r) => setTimeout(r, SECONDS * 1000))
  signal.stopping = true
  await Promise.all([probe.done, attacker])
  return { latencies: probe.latencies, failures: probe.failures(), statuses }
}

// A database file as in production (verify's whole-file pragmas run on a worker thread then); verify runs in full on
// every request (not once per 30 s), and the bars cache holds less than one imported dataset, so every backtest on it
// reads its bars from the database: each input at its worst.
const dir = mkdtempSync(join(tmpdir(), 'bench-hostile-'))
const { child, info } = await spawnServer<{ port: number; pid: number }>('scripts/bench/serve-app.ts', {
  RATE_LIMIT_PER_MIN: '0', BODY_LIMIT_BYTES: '16777216', DATABASE_PATH: join(dir, 'hub.sqlite'), VERIFY_CACHE_MS: '0',
  BARS_CACHE_BYTES: String(8 * 2 ** 20),
  // Within a stretch: the holding inputs are ended by the host while health is probed.
  SLOW_CLIENT_MS: '2000',
})
const base = `http://127.0.0.1:${info.port}`
await prepareHostile(base)
console.log(`bench:hostile: ${SECONDS} s calm, then ${SECONDS} s with one client looping each input; health probed every ${PROBE_MS} ms`)
console.log('input'.padEnd(38) + 'calm p99   hostile p50  p99      max      answers')
let worst = 0
try {
  for (const attack of hostileRequests().filter((r) => !ONLY || ONLY.split(',').some((part) => r.name.includes(part)))) {
    const calm = await stretch(base)
    const hostile = await stretch(base, attack)
    const calmSorted = ascending(calm.latencies)
    const hostileSorted = ascending(hostile.latencies)
    const p99 = quantile(hostileSorted, 0.99)
    worst = Math.max(worst, p99)
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`.padEnd(9)
    console.log(
      attack.name.padEnd(38) + fmt(quantile(calmSorted, 0.99)) + '  ' + fmt(quantile(hostileSorted, 0.5)) +
        fmt(p99) + fmt(hostileSorted.at(-1) ?? NaN) + JSON.stringify(hostile.statuses) +
        (hostile.failures ? `  health failures ${hostile.failures}` : ''),
    )
  }
  // Inputs that hold instead of send (issue #30 item 3): one client's sockets left open for the stretch, never reading
  // their answers or sending a body a byte at a time; the host's RSS beside each (SLOW_CLIENT_MS ends them).
  const holding = holdingInputs(await finishedLargeJob(base)).filter((h) => !ONLY || ONLY.split(',').some((part) => h.name.includes(part)))
  for (const input of holding) {
    const calm = await stretch(base)
    const rssBefore = rssMiB(info.pid) ?? NaN
    const held = await input.open(base)
    let rssPeak = rssBefore
    const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssMiB(info.pid) ?? 0) }, 50)
    const hostile = await stretch(base)
    clearInterval(sampler)
    const statuses = await held.close()
    const hostileSorted = ascending(hostile.latencies)
    const p99 = quantile(hostileSorted, 0.99)
    worst = Math.max(worst, p99)
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`.padEnd(9)
    console.log(
      input.name.padEnd(38) + fmt(quantile(ascending(calm.latencies), 0.99)) + '  ' + fmt(quantile(hostileSorted, 0.5)) +
        fmt(p99) + fmt(hostileSorted.at(-1) ?? NaN) + JSON.stringify(statuses) +
        `  RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB` + (hostile.failures ? `  health failures ${hostile.failures}` : ''),
    )
  }
} finally {
  await stop(child)
  rmSync(dir, { recursive: true, force: true })
}
console.log(`worst hostile p99 ${worst.toFixed(1)} ms (target < 50 ms: ${worst < 50 ? 'MET' : 'NOT MET'})`)
