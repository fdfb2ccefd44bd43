// Asks one of the host's probes and exits 0 on a 2xx, 1 otherwise: the Dockerfile's HEALTHCHECK, the compose
// healthchecks and the systemd units' start wait all call it (plain JavaScript: the image ships no TypeScript loader).
//   node scripts/probe.mjs /readyz                     http://127.0.0.1:$PORT/readyz (PORT defaults to 8000)
//   node scripts/probe.mjs --wait 120 URL              asks every 500 ms until a 2xx, for at most 120 s
// Each request has its own 3 s deadline, so a hung host fails the probe instead of holding it.
const args = process.argv.slice(2)
let waitS = 0
if (args[0] === '--wait') {
  waitS = Number(args[1])
  args.splice(0, 2)
}
const target = args[0]
if (!target || args.length !== 1 || !Number.isFinite(waitS) || waitS < 0) {
  process.stderr.write('usage: node scripts/probe.mjs [--wait SECONDS] /path|URL\n')
  process.exit(2)
}
const url = target.startsWith('/') ? `http://127.0.0.1:${process.env.PORT || 8000}${target}` : target
const deadline = Date.now() + waitS * 1000

async function ask() {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
    await res.body?.cancel()
    return { ok: res.ok, said: `${res.status}` }
  } catch (err) {
    return { ok: false, said: err.cause?.code ?? err.cause?.message ?? err.name }
  }
}

for (;;) {
  const { ok, said } = await ask()
  if (ok) process.exit(0)
  if (Date.now() >= deadline) {
    process.stderr.write(`probe: ${url} answered ${said}\n`)
    process.exit(1)
  }
  await new Promise((resolve) => setTimeout(resolve, 500))
}
