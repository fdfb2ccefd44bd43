// A pin read reserves memory for the pin it reads, on every door (POST /api/v1/pin, GET /api/v1/pin/text, the admin
// read, MCP's pin tool and resource): it reserved a large answer's whole share (LARGE_BODY_LIMIT_BYTES, 16 MiB) before
// the pin was even looked up, so a client reading many tiny pins at once was refused `occupied` as if each were 16 MiB.
// Now the read reserves once the pin's stored size is known (hashedPin): tiny reads fit where a large one does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { keepingBytes, reservationsReturned } from './monitor.js'

const MiB = 2 ** 20
const host = listeningTestApp({ env: { MEMORY_ADMISSION_BYTES: String(64 * MiB), MEMORY_PER_CLIENT_BYTES: String(64 * MiB) } })
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' }

/** Every door of a pin read, each answering whether it was served or refused (with the refusal and Retry-After). */
const doors = (digest: string) => ({
  'POST /api/v1/pin': async () => served(await keepingBytes(`${host.base}/api/v1/pin`, { body: { digest } })),
  'GET /api/v1/pin/text': async () => served(await keepingBytes(`${host.base}/api/v1/pin/text?digest=${digest}`, { headers: { accept: 'application/json' } })),
  'GET /api/v1/admin/pins/{digest}': async () => served(await keepingBytes(`${host.base}/api/v1/admin/pins/${digest}`)),
  'MCP pin tool': async () => {
    const result = (await keepingBytes(`${host.base}/mcp`, { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pin', arguments: { digest } } }, headers: MCP_ACCEPT })).json().result
    return result.isError ? { ok: false, refuse: result.structuredContent.refuse, retryAfter: String(result.structuredContent.refuse.retry_after_s) } : { ok: true }
  },
  'MCP pin resource': async () => {
    const answer = (await keepingBytes(`${host.base}/mcp`, { body: { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `ncm://pins/${digest}` } }, headers: MCP_ACCEPT })).json()
    return answer.error ? { ok: false, refuse: answer.error.data.refuse, retryAfter: String(answer.error.data.refuse.retry_after_s) } : { ok: true }
  },
})

function served(res: Awaited<ReturnType<typeof keepingBytes>>) {
  const body = res.json()
  return body.ok ? { ok: true } : { ok: false, refuse: body.refuse, retryAfter: res.headers['retry-after'] }
}

const pinned = async (content: string) => {
  const res = await keepingBytes(`${host.base}/api/v1/pin`, { body: { content } })
  expect(res.status).toBe(200)
  return res.json().data.digest as string
}

describe('a pin read reserves memory for the pin it reads', () => {
  let small: string
  let large: string
  beforeAll(async () => {
    small = await pinned('a small pin')
    // Just under the 1 MiB body: its read holds its bytes and their JSON text, about 7 MB reserved.
    large = await pinned('l'.repeat(1_000_000))
  })
  afterAll(async () => expect(await reservationsReturned(host.app)).toBe(0))

  it('reads of a small pin at once on every door are served with little of the share left; a large pin is refused', async () => {
    // Another client holds all but 2 MiB of the host's memory admission.
    const release = host.app.memory.reserve('another client', 62 * MiB, 'answer')
    try {
      for (const [door, read] of Object.entries(doors(small))) {
        const answers = await Promise.all(Array.from({ length: 40 }, read))
        expect(answers.filter((a) => !a.ok).map((a) => a.refuse), door).toEqual([])
      }
      for (const [door, read] of Object.entries(doors(large))) {
        const answer = await read()
        expect(answer.ok, door).toBe(false)
        expect(answer.refuse, door).toMatchObject({ code: 'occupied', retry_after_s: 1, hints: { limit: 'MEMORY_ADMISSION_BYTES' } })
        expect(answer.retryAfter, door).toBe('1')
      }
    } finally {
      release()
    }
    // With the share back, the large pin is read on every door.
    for (const [door, read] of Object.entries(doors(large))) {
      const answer = await read()
      // MCP's resource inlines at most MCP_INLINE_ANSWER_CHARS: the large pin is refused over_limit there, not occupied.
      if (door === 'MCP pin resource') expect(answer.refuse?.code, door).toBe('over_limit')
      else expect(answer, door).toEqual({ ok: true })
    }
  }, 60_000)
})
