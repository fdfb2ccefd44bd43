// bench:store — what the two store backends cost, measured in one run with interleaved rounds and medians:
//  1. opening: a fresh PostgreSQL database migrated (0001–0006), and an already migrated one (lock + read);
//  2. a keyed read (SELECT … WHERE id = ?) on SQLite, on PostgreSQL as a prepared (named) statement and unnamed;
//  3. contention: W writers each doing N read-modify-write transactions on one PostgreSQL row (SERIALIZABLE): commits/s,
//     how many runs lost a serialization race and were run again, how many gave up after the last attempt, and whether
//     the balance counts exactly the committed spends.
// Needs PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { loadavg } from 'node:os'
import { openStore } from '../../src/store/index.js'
import { createPostgresSql, TRANSACTION_ATTEMPTS } from '../../src/store/postgres-sql.js'
import { openPostgresStore } from '../../src/store/postgres-store.js'
import type { Sql } from '../../src/store/sql.js'
import { createTestDatabase } from '../../src/store/test-postgres.js'
import { median } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const READS = Number(process.env.BENCH_READS ?? 2000)
const WRITERS = Number(process.env.BENCH_WRITERS ?? 8)
const SPENDS = Number(process.env.BENCH_SPENDS ?? 25)
const fmt = (x: number, d = 1) => x.toFixed(d)
const spread = (xs: number[], d = 1) => `${fmt(median(xs), d)} (spread ${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`
const pgOptions = (url: string) => ({ url, poolMax: 10, connectTimeoutMs: 5000 })

console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared 2-core); ${ROUNDS} rounds, medians`)

// ---- 1. opening ------------------------------------------------------------------------------------------------
const fresh: number[] = []
const again: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const database = await createTestDatabase()
  let t = performance.now()
  await (await openPostgresStore(pgOptions(database.url))).close()
  fresh.push(performance.now() - t)
  t = performance.now()
  await (await openPostgresStore(pgOptions(database.url))).close()
  again.push(performance.now() - t)
  await database.drop()
}
console.log(`open PostgreSQL store: fresh database (6 migrations) ${spread(fresh)} ms; migrated ${spread(again)} ms`)

// ---- 2. keyed reads ----------------------------------------------------------------------------------------------
const database = await createTestDatabase()
const pg = await openPostgresStore(pgOptions(database.url))
const sqlite = await openStore({ path: ':memory:' })
const unnamed = createPostgresSql((pg.sql as ReturnType<typeof createPostgresSql>).pool, { maxNamed: 0 })
for (const store of [pg, sqlite]) {
  for (let i = 0; i < 100; i++) await store.sql.run('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?)', [`k${i}`, `v${i}`, 'now'])
}
const readAll = async (sql: Sql) => {
  const t = performance.now()
  for (let i = 0; i < READS; i++) await sql.get('SELECT value FROM meta WHERE key = ?', [`k${i % 100}`])
  return ((performance.now() - t) * 1000) / READS
}
const reads = { sqlite: [] as number[], named: [] as number[], unnamed: [] as number[] }
for (let r = 0; r < ROUNDS; r++) {
  reads.sqlite.push(await readAll(sqlite.sql))
  reads.named.push(await readAll(pg.sql))
  reads.unnamed.push(await readAll(unnamed))
}
console.log(`keyed read, µs each (${READS} sequential): SQLite ${spread(reads.sqlite)}; PostgreSQL prepared ${spread(reads.named)}, unnamed ${spread(reads.unnamed)}`)

// ---- 3. contention -----------------------------------------------------------------------------------------------
const retriesOf = () => (pg.sql as ReturnType<typeof createPostgresSql>).retries()
for (let r = 0; r < ROUNDS; r++) {
  await pg.sql.run(`INSERT INTO accounts (id, currency, initial_cash, cash, created_at) VALUES (?, 'USD', 1e9, 1e9, 'now')`, [`bench${r}`])
  const before = retriesOf()
  let gaveUp = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    for (let i = 0; i < SPENDS; i++) {
      await pg.sql.transaction(async (tx) => {
        const { cash } = (await tx.get<{ cash: number }>('SELECT cash FROM accounts WHERE id = ?', [`bench${r}`]))!
        await tx.run('UPDATE accounts SET cash = ? WHERE id = ?', [cash - 1, `bench${r}`])
      }).catch((err: { code?: string }) => {
        if (err.code !== '40001' && err.code !== '40P01') throw err
        gaveUp++
      })
    }
  }))
  const ms = performance.now() - t
  const { cash } = (await pg.sql.get<{ cash: number }>('SELECT cash FROM accounts WHERE id = ?', [`bench${r}`]))!
  const commits = WRITERS * SPENDS - gaveUp
  console.log(`contention round ${r + 1}: ${WRITERS} writers × ${SPENDS} spends on one row: ${fmt((commits / ms) * 1000, 0)} commits/s, ` +
    `${retriesOf() - before} runs again after a serialization failure, ${gaveUp} gave up after ${TRANSACTION_ATTEMPTS} attempts; ` +
    `the balance counts exactly the committed spends: ${1e9 - cash === commits}`)
}

await pg.close()
await sqlite.close()
await database.drop()
