// Issue #13: tools/list sent by many connections at once without a session. Each such message gets an MCP server of
// its own, and each server built an Ajv instance (~2 ms of the loop): the messages of one poll of the sockets ran back
// to back, 30 of them holding the loop's CPU 40-70 ms. The servers now share one validator.
import { spawn } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { besideHealth } from './monitor.js'

const host = listeningTestApp()

/** CPU of the loop's thread between two turns that no burst may reach (before: 40-70 ms; after: under 20). */
const STRETCH_BOUND_MS = 30
const PARALLEL = 30
const ROUNDS = 3

/** Rounds of PARALLEL session-less tools/list from another process (one in this process would send them a turn apart). */
function burstsFromAnotherProcess(url: string): Promise<{ sizes: number[]; failed: number }> {
  const script = `const sizes = new Set(); let failed = 0
const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }
for (let r = 0; r < ${ROUNDS}; r++) await Promise.all(Array.from({ length: ${PARALLEL} }, async () => {
  const res = await fetch(${JSON.stringify(url)}, init); const text = await res.text()
  if (res.status !== 200 || !JSON.parse(text).result?.tools?.length) failed++; sizes.add(text.length) }))
process.stdout.write(JSON.stringify({ sizes: [...sizes], failed }))`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const out: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(Buffer.concat(out).toString())) : reject(new Error(`client exited ${code}`))))
  })
}

describe('MCP tools/list without a session from many connections at once', () => {
  // The first message loads the SDK and builds the tool index, once per host: over before anything is measured.
  beforeAll(async () => {
    expect((await burstsFromAnotherProcess(`${host.base}/mcp`)).failed).toBe(0)
  }, 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: every listing whole, none holding the loop past the bound`, async () => {
    const { value: seen, health, stretch } = await besideHealth(host.base, `${ROUNDS} × ${PARALLEL} parallel tools/list`,
      () => burstsFromAnotherProcess(`${host.base}/mcp`))
    expect(seen.failed).toBe(0)
    expect(seen.sizes).toHaveLength(1)
    expect(stretch.maxCpuMs).toBeLessThan(STRETCH_BOUND_MS)
    expect(health.failures).toBe(0)
  }, 60_000)
})
