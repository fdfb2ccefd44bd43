// Issue #13: the first read of an OpenAPI document after a start. The host document was built in one go on the first
// read (the zod → JSON schema of every route, then @fastify/swagger's build), and its YAML encoded on the loop: the
// first /docs/yaml held the loop's CPU ~300 ms, the first /docs/json ~120 ms, the first caller document ~130 ms, and
// every other client waited that long. Route schemas are now converted in loop turns and the YAML in the mill.
import { describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { besideHealth, keepingBytes } from './monitor.js'


// One host per document: whichever document is read first pays for the host document they all come from.
describe.each([
  ['/docs/yaml', /^openapi: 3\.0\.3/],
  ['/docs/json', /^\{"openapi":"3\.0\.3"/],
  ['/api/v1/openapi.json', /"openapi":"3\.0\.3"/],
])('%s as the first document a fresh host is asked for', (path, opening) => {
  const host = listeningTestApp()

  it('is built without holding the loop past the bound', async () => {
    const { value: res, health } = await besideHealth(host.base, `first ${path}`, () => keepingBytes(`${host.base}${path}`))
    expect(res.status).toBe(200)
    expect(res.bytes().toString()).toMatch(opening)
    expect(health.failures).toBe(0)
  }, 60_000)
})
