// The store as the host holds it, on each backend: which it is, its round trip, version, pool and migrations.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { openStore, storeOptionsOf } from './index.js'
import { listMigrations } from './migrate.js'
import { storeStatus } from './status.js'
import { TEST_BACKENDS, testStores } from './test-backends.js'

const stores = testStores()
afterAll(() => stores.cleanup())

describe.each(TEST_BACKENDS)('store on %s', (backend) => {
  it('names its backend, answers a ping with its latency, and reads its version and migrations', async () => {
    const store = await stores.open(backend)
    expect(store.backend).toBe(backend)
    expect(store.sql.dialect).toBe(backend)
    expect(await store.ping()).toBeGreaterThanOrEqual(0)
    expect(await store.version()).toMatch(/^\d+\.\d+/)
    expect((await store.applied()).map((m) => m.name)).toEqual(listMigrations(store.migrationsDir).map((m) => m.name))
    expect(await store.pending()).toEqual([])
    expect(store.migrationsDir).toMatch(new RegExp(`migrations/${backend}$`))
    const status = await storeStatus(store)
    expect(status).toMatchObject({ backend, ok: true, error: null })
    if (backend === 'postgres') {
      expect(store.sqlite).toBeNull()
      expect(status.pool).toMatchObject({ max: 4 })
      expect(status.pool!.total).toBeGreaterThanOrEqual(1)
      expect(store.path).toMatch(/^postgres(ql)?:\/\/[^@]+\/ncm_test_/)
    } else {
      expect(store.sqlite!.open).toBe(true)
      expect(status).toMatchObject({ location: ':memory:', pool: null })
    }
  })

  it('concurrent pings share one SELECT 1, a ping after it settled sends another, and the version is read once', async () => {
    const store = await stores.open(backend)
    const get = vi.spyOn(store.sql, 'get')
    const [a, b] = await Promise.all([store.ping(), store.ping()])
    expect(a).toBe(b)
    expect(get).toHaveBeenCalledTimes(1)
    await store.ping()
    expect(get).toHaveBeenCalledTimes(2)
    get.mockClear()
    expect(await store.version()).toBe(await store.version())
    expect(get.mock.calls.length).toBeLessThanOrEqual(1)
  })

  it('after close, a ping rejects and the status says why instead of throwing', async () => {
    const store = await stores.open(backend)
    await store.close()
    await expect(store.ping()).rejects.toThrow()
    expect(await storeStatus(store)).toMatchObject({ ok: false, latency_ms: null, version: null, error: expect.any(String) })
  })
})

describe('openStore', () => {
  it('opens SQLite when DATABASE_URL is unset and PostgreSQL when it is set', () => {
    const base = { databasePath: '/data/ncm-hub.sqlite', databasePoolMax: 7, databaseConnectTimeoutMs: 900 }
    expect(storeOptionsOf({ ...base, databaseUrl: null })).toEqual({ path: '/data/ncm-hub.sqlite' })
    expect(storeOptionsOf({ ...base, databaseUrl: 'postgres://u:p@db/ncm' })).toEqual({ url: 'postgres://u:p@db/ncm', poolMax: 7, connectTimeoutMs: 900 })
  })

  it('fails to open an unreachable PostgreSQL within the connect timeout, naming where without the password', async () => {
    const opening = openStore({ url: 'postgres://ncm:s3cret@127.0.0.1:1/ncm', poolMax: 1, connectTimeoutMs: 500 })
    await expect(opening).rejects.toThrow(/^PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/ncm: /)
    await expect(opening).rejects.not.toThrow(/s3cret/)
  })
})
