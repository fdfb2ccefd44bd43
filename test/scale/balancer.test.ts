// nginx/ncm-hub-scale.conf as written, run by Debian's nginx in front of three compiled replicas (each on its own
// SQLite here: this is about the balancer, not the shared store; test/scale/replicas.test.ts is the shared store):
// requests spread over the replicas; a POST that reached a replica killed under it is answered 502 and never resent
// to another; GETs are routed around the dead replica, which is left out after max_fails; once back it serves again.
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import type { Pool } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { nginxUnavailable, poolTo, startCluster, type Cluster } from '../../scripts/cluster/cluster.js'

const nginxMissing = nginxUnavailable()
if (nginxMissing) console.warn(`skipping the balancer test: ${nginxMissing}`)

/** fail_timeout of the scale config's upstream lines, in ms. */
const FAIL_TIMEOUT_MS = 5000

describe.skipIf(nginxMissing !== null)('nginx/ncm-hub-scale.conf in front of three replicas', () => {
  let cluster: Cluster | null = null
  let pool: Pool | null = null
  afterAll(async () => {
    await pool?.destroy()
    await cluster?.stop()
  })

  const get = async (path: string) => {
    const res = await pool!.request({ path, method: 'GET' })
    await res.body.dump()
    return res.statusCode
  }
  const served = (lines: ReturnType<Cluster['accessLog']>) => {
    const counts = new Map<number, number>()
    for (const line of lines) for (const upstream of line.upstreams) {
      const replica = cluster!.replicaAt(upstream)
      if (replica) counts.set(replica.index, (counts.get(replica.index) ?? 0) + 1)
    }
    return counts
  }

  it('spreads requests, never resends a write, routes around a dead replica and takes it back', async () => {
    cluster = await startCluster({ replicas: 3, env: { RATE_LIMIT_PER_MIN: '0' } })
    pool = poolTo(cluster.url)

    // Spread: sequential GETs on idle replicas go round (least_conn breaks ties in turn).
    for (let i = 0; i < 30; i++) expect(await get('/api/v1/health')).toBe(200)
    const spread = served(await cluster.settledLog((lines) => lines.length >= 30))
    expect([...spread.keys()].sort(), JSON.stringify([...spread])).toEqual([0, 1, 2])

    // Three long writes at once: least_conn gives each replica one. Replica 0 dies under its write.
    const dimacs = pigeonholeDimacs(12)
    const writes = Array.from({ length: 3 }, () => pool!.request({
      path: '/api/v1/sat', method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dimacs, want_model: false, timeout_ms: 4000 }),
    }).then(async (res) => ({ status: res.statusCode, body: await res.body.text() })))
    await sleep(1500)
    await cluster.kill(0)
    const answers = await Promise.all(writes)
    const posts = (await cluster.settledLog((lines) => lines.filter((l) => l.method === 'POST').length >= 3)).filter((l) => l.method === 'POST')
    expect(posts).toHaveLength(3)
    const dead = `127.0.0.1:${cluster.replicas[0]!.port}`
    for (const post of posts) {
      // Never a second upstream for a POST: whether it ran is unknown, only the client may retry it.
      expect(post.upstreams, JSON.stringify(post)).toHaveLength(1)
      expect(post.status, JSON.stringify(post)).toBe(post.upstreams[0] === dead ? 502 : 200)
    }
    expect(posts.filter((p) => p.upstreams[0] === dead), JSON.stringify(posts)).toHaveLength(1)
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 502])

    // Reads while it is dead: all answered, retried on a live replica; after max_fails (2) it is left out.
    const before = cluster.accessLog().length
    for (let i = 0; i < 20; i++) expect(await get('/api/v1/health')).toBe(200)
    const reads = (await cluster.settledLog((lines) => lines.length >= before + 20)).slice(before)
    const triedDead = reads.filter((l) => l.upstreams.includes(dead))
    for (const read of triedDead) {
      expect(read.upstreams, JSON.stringify(read)).toHaveLength(2)
      expect(read.upstreams[0]).toBe(dead)
    }
    // The 502 above was one failure; one more refused connection reaches max_fails=2.
    expect(triedDead.length, JSON.stringify(reads)).toBeLessThanOrEqual(1)

    // Back: restarted on its port, and tried again once fail_timeout has passed since it was left out — at the latest
    // by the last read above. nginx probes it with one request then; a probe that lands before the replica answers
    // leaves it out for another fail_timeout, so reads go on (every one answered) until it serves, for 3 windows at most.
    const leftOutBy = Date.now()
    await cluster.restart(0)
    await sleep(Math.max(0, leftOutBy + FAIL_TIMEOUT_MS + 500 - Date.now()))
    const deadline = Date.now() + 3 * FAIL_TIMEOUT_MS
    let servedByRestarted = 0
    while (servedByRestarted === 0 && Date.now() < deadline) {
      const beforeBack = cluster.accessLog().length
      for (let i = 0; i < 10; i++) expect(await get('/api/v1/health')).toBe(200)
      servedByRestarted = served((await cluster.settledLog((lines) => lines.length >= beforeBack + 10)).slice(beforeBack)).get(0) ?? 0
      if (servedByRestarted === 0) await sleep(250)
    }
    expect(servedByRestarted, 'the restarted replica serves again').toBeGreaterThan(0)
  }, 120_000)
})
