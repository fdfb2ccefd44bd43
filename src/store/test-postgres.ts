// PostgreSQL for tests: each test file makes its own database (ncm_test_<random>) and drops it afterwards. When the
// server cannot be reached the tests skip with the reason printed, except under CI=true, where that is a failure.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The server tests create their databases on (a maintenance database of it). */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

let reachable: Promise<string | null> | undefined

/** Null when PostgreSQL answers, else why not (printed once). Throws under CI=true, where a skip would hide the suite. */
export async function postgresUnavailable(): Promise<string | null> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 })
    try {
      await client.connect()
      await client.query('SELECT 1')
      return null
    } catch (err) {
      return `PostgreSQL at ${redacted(TEST_POSTGRES_URL)} unreachable (${(err as Error).message})`
    } finally {
      await client.end().catch(() => {})
    }
  })()
  const reason = await reachable
  if (reason && process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`)
  if (reason) console.warn(`skipping PostgreSQL tests: ${reason}`)
  return reason
}

export interface TestDatabase {
  readonly name: string
  /** Connection string of the new database. */
  readonly url: string
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `ncm_test_${randomBytes(6).toString('hex')}`
  await onServer((client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(TEST_POSTGRES_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () => onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  }
}

async function onServer(fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    await fn(client)
  } finally {
    await client.end()
  }
}

const redacted = (url: string): string => {
  const u = new URL(url)
  u.password = ''
  return u.toString()
}
