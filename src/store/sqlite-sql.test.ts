import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { createSqliteSql } from './sqlite-sql.js'

const open = (options?: Parameters<typeof createSqliteSql>[1]) => {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)')
  return createSqliteSql(db, options)
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

  it('asks beforeWrite before every statement that adds rows, in a transaction or not; never a read, an UPDATE or a DELETE', async () => {
    let asked = 0
    let refuse = false
    const errors: unknown[] = []
    const sql = open({
      onError: (err) => errors.push(err),
      beforeWrite: () => {
        asked++
        if (refuse) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
      },
    })
    await sql.get('INSERT INTO t (name) VALUES (?) RETURNING id', ['a'])
    expect(asked).toBe(1)
    await sql.all('SELECT * FROM t')
    await sql.run('DELETE FROM t WHERE name = ?', ['nothing'])
    expect(asked).toBe(1)
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO t (name) VALUES (?)', ['b'])
      await tx.run('UPDATE t SET name = ? WHERE name = ?', ['c', 'b'])
      await tx.all('SELECT * FROM t')
    })
    expect(asked).toBe(2)

    refuse = true
    await expect(sql.run('INSERT INTO t (name) VALUES (?)', ['d'])).rejects.toMatchObject({ code: 'SQLITE_FULL' })
    // Refused midway: the transaction is rolled back whole.
    await expect(sql.transaction(async (tx) => {
      await tx.run('DELETE FROM t WHERE name = ?', ['c'])
      await tx.run('INSERT INTO t (name) VALUES (?)', ['e'])
    })).rejects.toMatchObject({ code: 'SQLITE_FULL' })
    expect((await sql.all<{ name: string }>('SELECT name FROM t ORDER BY id')).map((r) => r.name)).toEqual(['a', 'c'])
    // Deletes free room, updates unlink: alone or in a transaction, they are not refused.
    await sql.run('DELETE FROM t WHERE name = ?', ['a'])
    await sql.transaction(async (tx) => {
      await tx.run('UPDATE t SET name = ? WHERE name = ?', ['gone', 'c'])
      await tx.run('DELETE FROM t WHERE name = ?', ['gone'])
    })
    expect(await sql.all('SELECT name FROM t')).toEqual([])
    expect(errors).toHaveLength(2)
  })
})
