// Issue #13: tools/list sent by many connections at once without a session. Each such message gets an MCP server of
// its own, and each server built an Ajv instance (~2 ms of the loop): the messages of one poll of the sockets ran back
// to back, 30 of them holding the loop's CPU 40-70 ms. The servers now share one validator.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsFromAnotherProcess } from './bursts.js'
import { besideHealth } from './monitor.js'

const host = listeningTestApp()

const PARALLEL = 30
const ROUNDS = 3

/** A session-less tools/list, as an MCP client without a session sends it. */
const TOOLS_LIST = {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
}
const listings = () => burstsFromAnotherProcess(`${host.base}/mcp`, ROUNDS, PARALLEL, TOOLS_LIST)

/** Every answer a whole listing: a 200 whose result names tools. */
function expectListings(seen: { texts: string[]; failed: number }): void {
  expect(seen.failed).toBe(0)
  for (const text of seen.texts) expect(JSON.parse(text).result?.tools?.length).toBeGreaterThan(0)
}

describe('MCP tools/list without a session from many connections at once', () => {
  // The first message loads the SDK and builds the tool index, once per host: over before anything is measured.
  beforeAll(async () => {
    expectListings(await listings())
  }, 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: every listing whole, none holding the loop past the bound`, async () => {
    const { value: seen, health } = await besideHealth(host.base, `${ROUNDS} × ${PARALLEL} parallel tools/list`,
      listings)
    expectListings(seen)
    expect(new Set(seen.texts.map((text) => text.length)).size).toBe(1)
    expect(health.failures).toBe(0)
  }, 60_000)
})
