import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { createSqliteSql } from './sqlite-sql.js'

const open = () => {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)')
  return createSqliteSql(db)
}

describe('Sql over SQLite', () => {
  it('binds positional and named parameters and returns ids with RETURNING', async () => {
    const sql = open()
    const row = await sql.get<{ id: number }>('INSERT INTO t (name) VALUES (?) RETURNING id', ['a'])
    expect(row).toEqual({ id: 1 })
    await sql.run('INSERT INTO t (name) VALUES (@name)', { name: 'b' })
    expect(await sql.all('SELECT name FROM t ORDER BY id')).toEqual([{ name: 'a' }, { name: 'b' }])
    expect(await sql.run('INSERT INTO t (name) VALUES (?) ON CONFLICT (name) DO NOTHING', ['a'])).toEqual({ changes: 0 })
  })

  it('rolls a failed transaction back whole', async () => {
    const sql = open()
    await expect(sql.transaction(async (tx) => {
      await tx.run('INSERT INTO t (name) VALUES (?)', ['x'])
      await tx.run('INSERT INTO t (name) VALUES (?)', ['x'])
    })).rejects.toThrow(/UNIQUE/)
    expect(await sql.all('SELECT * FROM t')).toEqual([])
  })

  it('keeps statements from outside out of an open transaction', async () => {
    const sql = open()
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const tx = sql.transaction(async (t) => {
      await t.run('INSERT INTO t (name) VALUES (?)', ['inside'])
      await gate
      throw new Error('abandon')
    })
    // Issued while the transaction is open: they run after it ends, in the order issued, never inside it.
    const outsider = sql.run('INSERT INTO t (name) VALUES (?)', ['outside'])
    const seen = sql.all<{ name: string }>('SELECT name FROM t')
    release()
    await expect(tx).rejects.toThrow('abandon')
    await outsider
    expect(await seen).toEqual([{ name: 'outside' }])
  })
})
