// The whole host on PostgreSQL (DATABASE_URL): it migrates a fresh database at start, seeds, serves writes, and every
// health and statistics answer names the backend with its version, latency and pool. Skipped with the reason printed
// when PostgreSQL cannot be reached (a failure under CI=true).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../../src/store/test-postgres.js'
import { REPO_ROOT } from '../../src/version.js'
import { buildTestApp, json, okData } from '../helper.js'

const unavailable = await postgresUnavailable()
/** Every migration the PostgreSQL dialect ships: a fresh database applies them all. */
const MIGRATIONS = readdirSync(join(REPO_ROOT, 'src/store/migrations/postgres')).filter((f) => f.endsWith('.sql')).sort()
const SMALL_CSV = 'Date,Open,High,Low,Close,Volume\n2024-01-02,10,11,9.5,10.5,1000\n2024-01-03,10.5,11.2,10.1,11,1200\n2024-01-04,11,11.5,10.8,11.1,900\n'

describe.skipIf(unavailable !== null)('the host on PostgreSQL', () => {
  let database: TestDatabase
  let app: FastifyInstance
  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildTestApp({ env: { DATABASE_URL: database.url, DATABASE_POOL_MAX: '3' } })
  })
  afterAll(async () => {
    await app?.close()
    await database?.drop()
  })

  it('answers /health and /api/v1/health with the PostgreSQL store: version, latency, pool', async () => {
    const root = await app.inject('/health')
    expect(root.statusCode, root.body).toBe(200)
    const store = json(root).store
    expect(store).toMatchObject({ backend: 'postgres', ok: true, error: null, pool: { max: 3 } })
    expect(store.location).toBe(`postgres://${new URL(database.url).host}/${database.name}`)
    expect(store.version).toMatch(/^\d+\.\d+/)
    expect(store.latency_ms).toBeGreaterThanOrEqual(0)

    const caller = okData(await app.inject('/api/v1/health'))
    expect(caller.checks['database:responseTime'][0]).toMatchObject({ componentId: 'postgres', status: 'pass', output: `postgres ${store.version}` })
    expect(caller.store).toMatchObject({ backend: 'postgres', ok: true })

    const v11 = json(await app.inject('/api/v11/system/health'))
    expect(v11.components.find((c: { name: string }) => c.name === 'database')).toMatchObject({ status: 'ok', backend: 'postgres', version: store.version })
    expect(v11.components.find((c: { name: string }) => c.name === 'migrations')).toMatchObject({ status: 'ok', detail: `${MIGRATIONS.length} applied, none pending` })
  })

  it('serves writes into PostgreSQL and /api/v11/db/stats reports its tables with sizes', async () => {
    const imported = await app.inject({ method: 'POST', url: '/api/v11/datasets?symbol=PGX&timeframe=1d', payload: SMALL_CSV, headers: { 'content-type': 'text/csv' } })
    expect(imported.statusCode, imported.body).toBe(201)
    const stats = json(await app.inject('/api/v11/db/stats'))
    expect(stats).toMatchObject({ backend: 'postgres', sqlite_version: null, journal_mode: null, page_size: null, file_bytes: null, in_memory: false })
    expect(stats.server_version).toMatch(/^\d+\.\d+/)
    expect(stats.database_bytes).toBeGreaterThan(0)
    const bars = stats.tables.find((t: { name: string }) => t.name === 'bars')
    expect(bars.rows).toBeGreaterThanOrEqual(3)
    expect(bars.bytes).toBeGreaterThan(0)
    expect(stats.migrations.map((m: { name: string }) => m.name)).toEqual(MIGRATIONS)
  })

  it('the live metrics report the PostgreSQL pool, and no database file', async () => {
    const summary = okData(await app.inject('/api/v1/admin/command-post/summary'))
    expect(summary.database).toMatchObject({ backend: 'postgres', file_bytes: null, wal_bytes: null, pool: { max: 3 } })
    expect(summary.database.note).toMatch(/db\/stats/)
    const text = (await app.inject('/metrics')).body
    expect(text).toMatch(/^ncm_database_pool_connections\{state="idle"\} \d+$/m)
    expect(text).not.toMatch(/^ncm_database_bytes/m)
  })

  it('the readiness report names PostgreSQL, its migrations and the store check', async () => {
    const res = await app.inject('/api/v1/admin/go-live/overview')
    expect(res.statusCode).toBe(200)
    const report = json(res).data
    expect(report.plan.migration_summary).toMatchObject({
      backend: 'postgres', migrations_dir: 'src/store/migrations/postgres', database_exists: true, pending: [], error: null,
      database_path: expect.stringMatching(/^postgres:\/\/127\.0\.0\.1:5432\/ncm_test_/),
    })
    expect(report.plan.migration_summary.applied).toHaveLength(MIGRATIONS.length)
    expect(report.plan.migration_summary.commands[1]).toMatch(/^psql "\$DATABASE_URL"/)
    expect(report.store).toMatchObject({ backend: 'postgres', ok: true })
    expect(JSON.stringify(report)).not.toContain(database.url)
  })

  // Last: it takes the database away from the host.
  it('says down (503) with the reason when PostgreSQL cannot answer', async () => {
    await app.store.close()
    const root = await app.inject('/health')
    expect(root.statusCode).toBe(503)
    expect(json(root)).toMatchObject({ status: 'down', checks: { database: { ok: false } }, store: { backend: 'postgres', ok: false, latency_ms: null } })
    expect(json(root).store.error).toMatch(/pool/i)
    const caller = json(await app.inject('/api/v1/health'))
    expect(caller.data.checks['database:responseTime'][0]).toMatchObject({ componentId: 'postgres', status: 'fail' })
  })
})
