// The only module that opens databases: SQLite in DATA_DIR by default, PostgreSQL when DATABASE_URL is set (issue #18).
import type Database from 'better-sqlite3'
import type { Config } from '../config.js'
import { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js'
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js'
import type { Store } from './store.js'

export type { Db, PoolUse, Store } from './store.js'
export type Statement<P extends unknown[] | object = unknown[], R = unknown> = Database.Statement<P, R>

export type OpenStoreOptions = SqliteStoreOptions | PostgresStoreOptions

/** Opens the store and applies its pending migrations. */
export function openStore(options: OpenStoreOptions): Promise<Store> {
  return 'url' in options ? openPostgresStore(options) : openSqliteStore(options)
}

/** The store the configuration names: DATABASE_URL's PostgreSQL, else the SQLite file. */
export function storeOptionsOf(config: Pick<Config, 'databasePath' | 'databaseUrl' | 'databasePoolMax' | 'databaseConnectTimeoutMs'>): OpenStoreOptions {
  return config.databaseUrl
    ? { url: config.databaseUrl, poolMax: config.databasePoolMax, connectTimeoutMs: config.databaseConnectTimeoutMs }
    : { path: config.databasePath }
}
