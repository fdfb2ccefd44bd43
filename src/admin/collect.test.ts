import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { displayPath, environmentSummary } from './collect.js'

describe('displayPath (the report never shows an absolute host path)', () => {
  const root = '/srv/app'
  it('is relative to DATA_DIR first, then to the repo root', () => {
    expect(displayPath('/var/lib/ncm/ncm-hub.sqlite', root, '/var/lib/ncm')).toBe('$DATA_DIR/ncm-hub.sqlite')
    expect(displayPath('/srv/app/data/ncm-hub.sqlite', root, '/srv/app/data')).toBe('$DATA_DIR/ncm-hub.sqlite')
    expect(displayPath('/srv/app/src/store/migrations', root, '/srv/app/data')).toBe('src/store/migrations')
    expect(displayPath('/var/lib/ncm', root, '/var/lib/ncm')).toBe('$DATA_DIR')
  })
  it('hides paths outside both, keeping only the file name', () => {
    expect(displayPath('/elsewhere/secret/db.sqlite', root, '/var/lib/ncm')).toBe('<outside the repo and DATA_DIR>/db.sqlite')
    expect(displayPath('/srv/application/x.sqlite', root, '/data')).toBe('<outside the repo and DATA_DIR>/x.sqlite')
    expect(displayPath(':memory:', root, '/data')).toBe(':memory:')
  })
})

describe('environmentSummary and the store', () => {
  const production = { NODE_ENV: 'production', ADMIN_TOKEN: 'a-production-admin-token', HOST: '0.0.0.0' }
  const details = (env: Record<string, string>) => {
    const summary = environmentSummary(loadConfig({ ...production, ...env }), '/srv/app')
    return [...summary.required_blockers, ...summary.advisories].map((n) => n.detail)
  }
  it('blocks an in-memory SQLite store in production, not a PostgreSQL one', () => {
    expect(details({ DATABASE_PATH: ':memory:' })).toContainEqual(expect.stringContaining('database is in memory'))
    expect(details({ DATABASE_PATH: ':memory:', DATABASE_URL: 'postgres://ncm@db/ncm' })).toEqual([])
  })
  it('advises one PostgreSQL database when replicas share Redis but not a database', () => {
    expect(details({ REDIS_URL: 'redis://cache:6379' })).toEqual([expect.stringContaining('REDIS_URL is set but DATABASE_URL is not')])
    expect(details({ REDIS_URL: 'redis://cache:6379', DATABASE_URL: 'postgres://ncm@db/ncm' })).toEqual([])
  })
})
