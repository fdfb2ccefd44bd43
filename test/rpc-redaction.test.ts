// Issue #13 item 12 over a real socket: RPC endpoint URLs show scheme, host and port only in every public answer, unless
// the operator lists them in RPC_PUBLIC_ENDPOINTS.
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from './helper.js'
import { REDACTION_CENSOR } from '../src/http/redact.js'

// Port 9 (discard) on loopback refuses at once: probes fail fast, and their errors are part of what is checked.
const SHORT_KEY = 'mySecretKey42'
const FRAGMENT_SECRET = 'frag-s3cr3t'
const SECRET_URLS = [`http://127.0.0.1:9/v1/${SHORT_KEY}`, `http://127.0.0.1:9/rpc#key=${FRAGMENT_SECRET}`]
const PUBLIC_URL = 'http://127.0.0.1:9/ethereum-mainnet/public'

const host = listeningTestApp({
  env: { RPC_ENDPOINTS: SECRET_URLS.join(','), RPC_PUBLIC_ENDPOINTS: PUBLIC_URL, RPC_PROBE_INTERVAL_MS: '100' },
})
beforeAll(async () => {
  await new Promise((r) => setTimeout(r, 400)) // a few probe rounds, so last_error is filled
})

const get = async (path: string) => {
  const res = await request(host.base + path)
  return { status: res.statusCode, text: await res.body.text() }
}

describe('RPC endpoint redaction (item 12)', () => {
  it('no public answer shows a short path key or a fragment', async () => {
    for (const path of ['/api/v1/env', '/api/v6/rpc/snapshot', '/api/v6/rpc/best', '/api/v6/command-center/panels', '/api/v11/system/health']) {
      const { text } = await get(path)
      expect(text, path).not.toContain(SHORT_KEY)
      expect(text, path).not.toContain(FRAGMENT_SECRET)
      expect(text, path).not.toContain('/v1/')
    }
  })

  it('secret endpoints appear as scheme://host:port, public ones in full', async () => {
    const env = JSON.parse((await get('/api/v1/env')).text).data.effective
    expect(env.RPC_ENDPOINTS).toEqual([`http://127.0.0.1:9/${REDACTION_CENSOR}`, `http://127.0.0.1:9/${REDACTION_CENSOR}`])
    expect(env.RPC_PUBLIC_ENDPOINTS).toEqual([PUBLIC_URL])
    const snapshot = JSON.parse((await get('/api/v6/rpc/snapshot')).text)
    expect(snapshot.endpoints.map((e: { url: string }) => e.url)).toEqual([
      `http://127.0.0.1:9/${REDACTION_CENSOR}`, `http://127.0.0.1:9/${REDACTION_CENSOR}`, PUBLIC_URL,
    ])
    expect(snapshot.endpoints.every((e: { samples: number }) => e.samples > 0)).toBe(true)
  })
})
