import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from './index.js'
import { MIGRATIONS_DIR, listMigrations } from './migrate.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ncm-migrate-'))
  dirs.push(d)
  return d
}

describe('migrations', () => {
  it('applies every migration of the repo in order and records it', () => {
    const store = openStore({ path: ':memory:' })
    const names = listMigrations(MIGRATIONS_DIR).map((m) => m.name)
    expect(store.applied().map((m) => m.name)).toEqual(names)
    expect(store.pending()).toEqual([])
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1)
    store.close()
  })

  it('uses WAL on a file and re-opens without re-applying', () => {
    const dir = tempDir()
    const path = join(dir, 'db.sqlite')
    const first = openStore({ path })
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal')
    const applied = first.applied()
    first.close()
    const second = openStore({ path })
    expect(second.applied()).toEqual(applied)
    second.close()
  })

  it('rolls back a failing migration whole and records nothing of it', () => {
    const dir = tempDir()
    writeFileSync(join(dir, '0001-good.sql'), 'CREATE TABLE a (x INTEGER);')
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);')
    const path = join(dir, 'db.sqlite')
    expect(() => openStore({ path, migrationsDir: dir })).toThrow(/nowhere/)
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y INTEGER);')
    const store = openStore({ path, migrationsDir: dir })
    expect(store.applied().map((m) => m.name)).toEqual(['0001-good.sql', '0002-bad.sql'])
    store.close()
  })

  it('refuses a migration edited after it was applied, and badly named files', () => {
    const dir = tempDir()
    writeFileSync(join(dir, '0001-a.sql'), 'CREATE TABLE a (x INTEGER);')
    const path = join(dir, 'db.sqlite')
    openStore({ path, migrationsDir: dir }).close()
    writeFileSync(join(dir, '0001-a.sql'), 'CREATE TABLE a (x INTEGER, y INTEGER);')
    expect(() => openStore({ path, migrationsDir: dir })).toThrow(/changed after it was applied/)
    const other = tempDir()
    writeFileSync(join(other, 'init.sql'), 'SELECT 1;')
    expect(() => openStore({ path: ':memory:', migrationsDir: other })).toThrow(/NNNN-name/)
  })
})
