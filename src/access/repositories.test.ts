// The grant and pin repositories over Sql, on SQLite and PostgreSQL: issue, look up by token hash, revoke once, count,
// page; pins stored once per digest (racing puts included), read back with their bytes re-hashed.
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { grantRepository, GRANT_USE_RESOLUTION_MS } from './grants.js'
import { pinBytesOf } from './pin-parts.js'
import { pinRepository } from './pins.js'
import { hashToken } from './tokens.js'

const stores = testStores()
afterAll(() => stores.cleanup())
const T0 = Date.parse('2026-01-01T00:00:00Z')
const digestOf = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')

describe.each(TEST_BACKENDS)('access repositories on %s', (backend) => {
  it('grants: issued, found by token hash, revoked once, counted and paged newest first', async () => {
    const { sql } = await stores.open(backend)
    const grants = grantRepository(sql)
    expect(grantRepository(sql)).toBe(grants)
    const first = await grants.issue('ci', ['pin:write'], 60, T0)
    const second = await grants.issue('ops', ['admin:read', 'pin:write'], 3600, T0 + 1000)
    expect(await grants.byTokenHash(hashToken(first.token))).toEqual(first.grant)
    expect(await grants.byTokenHash(hashToken('not a token'))).toBeNull()
    expect(await grants.counts(T0 + 120_000)).toEqual({ total: 2, active: 1 })

    const revoked = await grants.revoke(second.grant.id, T0 + 2000)
    expect(revoked).toEqual({ grant: { ...second.grant, revoked_at: new Date(T0 + 2000).toISOString() }, alreadyRevoked: false })
    expect((await grants.revoke(second.grant.id, T0 + 3000))?.alreadyRevoked).toBe(true)
    expect(await grants.revoke('no-such-grant', T0)).toBeNull()
    expect(await grants.counts(T0 + 2000)).toEqual({ total: 2, active: 1 })

    await grants.touch(first.grant.id, T0 + 5000)
    await grants.touch(first.grant.id, T0 + 5000 + GRANT_USE_RESOLUTION_MS - 1)
    const page = await grants.page(null, 1)
    expect(page.map((g) => g.id)).toEqual([second.grant.id, first.grant.id])
    expect(page[1]!.last_used_at).toBe(new Date(T0 + 5000).toISOString())
    expect((await grants.page([page[0]!.created_at, page[0]!.id], 1)).map((g) => g.id)).toEqual([first.grant.id])
  })

  it('pins: one row per digest however many put it at once; the first label stays; bytes re-hashed on read', async () => {
    const { sql } = await stores.open(backend)
    const pins = pinRepository(sql)
    const text = 'pinned once\n'
    const bytes = pinBytesOf(text)
    const puts = await Promise.all([1, 2, 3].map((i) => pins.put(bytes, 'text/plain', `label ${i}`, T0 + i)))
    expect(puts.filter((p) => p.created)).toHaveLength(1)
    const winner = puts.find((p) => p.created)!.record
    for (const put of puts) expect(put.record).toEqual(winner)
    expect(winner).toMatchObject({ digest: digestOf(text), size: Buffer.byteLength(text), media_type: 'text/plain' })

    const read = await pins.get(winner.digest)
    expect(read?.record).toEqual(winner)
    expect(Buffer.concat(read!.parts).toString()).toBe(text)
    expect(await pins.get(digestOf('never'))).toBeNull()

    const later = await pins.put(pinBytesOf('{"a":1}'), 'application/json', null, T0 + 10)
    expect(await pins.count()).toBe(2)
    expect((await pins.latest(5)).map((p) => p.digest)).toEqual([later.record.digest, winner.digest])
    expect((await pins.page(null, 1)).map((p) => p.digest)).toEqual([later.record.digest, winner.digest])
  })
})
