// The store as the host holds it, on each backend: which it is, its round trip, version, pool and migrations.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
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

  it('reads rows as arrays of column values in select order', async () => {
    const store = await stores.open(backend)
    await store.sql.run("INSERT INTO meta (key, value, updated_at) VALUES ('a', '1', 'x'), ('b', '2', 'y')")
    expect(await store.sql.values('SELECT key, value FROM meta WHERE key IN (?, ?) ORDER BY key', ['a', 'b'])).toEqual([['a', '1'], ['b', '2']])
    expect(await store.sql.values("SELECT count(*) AS n, 2.5 AS x FROM meta WHERE key = 'none'")).toEqual([[0, 2.5]])
    await store.sql.transaction(async (tx) => {
      expect(await tx.values("SELECT value FROM meta WHERE key = 'b'")).toEqual([['2']])
    })
  })

  it('answers a ping while a transaction is open (health does not wait out a long import)', async () => {
    const store = await stores.open(backend)
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const transaction = store.sql.transaction(async (tx) => {
      await tx.run("INSERT INTO meta (key, value, updated_at) VALUES ('held', '1', 'x')")
      await gate
    })
    // Queued behind the transaction the ping would never answer before the gate opens.
    const answered = await Promise.race([store.ping().then(() => 'ping'), new Promise((resolve) => setTimeout(resolve, 5000, 'queued'))])
    release()
    await transaction
    expect(answered).toBe('ping')
  })

  it('concurrent pings share one SELECT 1, a ping after it settled sends another, and the version is read once', async () => {
    const store = await stores.open(backend)
    // SQLite's probe goes to the connection directly (not queued behind a transaction), each text prepared once:
    // count the runs of the statements it prepares.
    const get = vi.fn()
    if (backend === 'sqlite') {
      const db = store.sqlite!
      const prepare = db.prepare.bind(db)
      const prepared = vi.spyOn(db, 'prepare').mockImplementation(((text: string) => {
        const statement = prepare(text)
        const run = statement.get.bind(statement)
        statement.get = ((...params: unknown[]) => {
          get(text)
          return run(...params)
        }) as typeof statement.get
        return statement
      }) as typeof db.prepare)
      onTestFinished(() => prepared.mockRestore())
    } else {
      const run = store.sql.get.bind(store.sql)
      vi.spyOn(store.sql, 'get').mockImplementation(((text: string, params?: never) => {
        get(text)
        return run(text, params)
      }) as typeof store.sql.get)
    }
    const [a, b] = await Promise.all([store.ping(), store.ping()])
    expect(a).toBe(b)
    expect(get).toHaveBeenCalledTimes(1)
    await store.ping()
    await store.ping()
    expect(get).toHaveBeenCalledTimes(3)
    get.mockClear()
    expect(await store.version()).toBe(await store.version())
    expect(get.mock.calls.length).toBeLessThanOrEqual(1)
    if (backend === 'sqlite') expect(store.sqlite!.prepare).toHaveBeenCalledTimes(2) // SELECT 1 and sqlite_version(), once each
  })

  it('after close, a ping rejects and the status says why instead of throwing', async () => {
    const store = await stores.open(backend)
    await store.close()
    await expect(store.ping()).rejects.toThrow()
    expect(await storeStatus(store)).toMatchObject({ ok: false, latency_ms: null, version: null, error: expect.any(String) })
  })
})

describe('SQLite check pragmas', () => {
  it('run on a worker thread for a file (seeing committed rows, reporting a broken reference) and on the connection in memory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncm-check-pragma-'))
    try {
      const store = await openStore({ path: join(dir, 'hub.sqlite') })
      expect(await store.checkPragma!('integrity_check')).toEqual([{ integrity_check: 'ok' }])
      expect(await store.checkPragma!('foreign_key_check')).toEqual([])
      store.sqlite!.pragma('foreign_keys = OFF')
      await store.sql.run("INSERT INTO positions (account_id, dataset_id, symbol, quantity, avg_price, realized_pnl, updated_at) VALUES ('nobody', 99, 'X', 1, 1, 0, 'x')")
      expect((await store.checkPragma!('foreign_key_check')).map((r) => r.table)).toContain('positions')
      await store.close()
      await expect(openStore({ path: ':memory:' }).then((memory) => memory.checkPragma!('integrity_check'))).resolves.toEqual([{ integrity_check: 'ok' }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
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
