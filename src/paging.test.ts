// The paging module: cursor codec round trips and refusals, limits, and keyset walks over SQLite stable under inserts.
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, pagedList, type PageQuery } from './paging.js'
import { Refusal } from './refusal.js'
import { openStore } from './store/index.js'
import { keysetPages, keysetQuery } from './store/keyset.js'

const refusalOf = (fn: () => unknown): Refusal => {
  try {
    fn()
  } catch (err) {
    if (err instanceof Refusal) return err
    throw err
  }
  throw new Error('expected a refusal')
}

describe('cursor codec', () => {
  it('round-trips a keyset position and is opaque base64url', () => {
    const cursor = encodeCursor('pins', ['2026-01-01T00:00:00.000Z', 'sha256:ab'])
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor('pins', ['string', 'string'], cursor)).toEqual(['2026-01-01T00:00:00.000Z', 'sha256:ab'])
  })

  it.each([
    ['not base64url', 'a+b/c='],
    ['undecodable', 'AAAA'],
    ['another list', encodeCursor('runs', [3])],
    ['another shape', encodeCursor('fills', ['3'])],
    ['too many parts', encodeCursor('fills', [3, 4])],
    ['an unsafe integer', encodeCursor('fills', [2 ** 60])],
    ['JSON of another kind', Buffer.from('{"a":1}').toString('base64url')],
    ['too long', 'A'.repeat(2000)],
  ])('refuses a cursor that is %s with invalid_input naming the cursor', (_what, cursor) => {
    const refusal = refusalOf(() => decodeCursor('fills', ['integer'], cursor))
    expect(refusal.code).toBe('invalid_input')
    expect(refusal.statusCode).toBe(400)
    expect(refusal.options.issues?.[0]?.path).toBe('cursor')
    expect(refusal.message).toMatch(/^cursor: /)
  })
})

describe('pagedList', () => {
  const list = pagedList<{ id: number }>('things', ['integer'], (row) => [row.id])

  it('defaults the limit and refuses more than the maximum with over_limit', () => {
    expect(list.request({})).toEqual({ limit: PAGE_LIMIT_DEFAULT, after: null })
    expect(list.request({ limit: PAGE_LIMIT_MAX }).limit).toBe(PAGE_LIMIT_MAX)
    const refusal = refusalOf(() => list.request({ limit: PAGE_LIMIT_MAX + 1 }))
    expect(refusal.code).toBe('over_limit')
    expect(refusal.options.issues?.[0]?.path).toBe('limit')
  })

  it('answers next_cursor only when a row beyond the page was read', () => {
    expect(list.page([{ id: 3 }, { id: 2 }], { limit: 2, after: null }).next_cursor).toBeNull()
    const page = list.page([{ id: 3 }, { id: 2 }, { id: 1 }], { limit: 2, after: null })
    expect(page.rows).toEqual([{ id: 3 }, { id: 2 }])
    expect(list.request({ cursor: page.next_cursor! }).after).toEqual([2])
  })
})

describe('keyset walk over SQLite', () => {
  async function setup() {
    // Through the store (the one module that opens databases): a migrated in-memory database plus a scratch table.
    const store = await openStore({ path: ':memory:' })
    const db = store.db
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, tag TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO items (created_at, tag) VALUES (?, ?)')
    return { db, sql: store.sql, insert: (createdAt: string, tag: string) => Number(insert.run(createdAt, tag).lastInsertRowid) }
  }
  type Row = { id: number; created_at: string; tag: string }

  function walk(read: (q: PageQuery) => { rows: Row[]; next_cursor: string | null }, limit: number, between?: (page: number) => void) {
    const seen: number[] = []
    let cursor: string | undefined
    for (let page = 0; page < 1000; page++) {
      const answer = read({ limit, ...(cursor ? { cursor } : {}) })
      seen.push(...answer.rows.map((r) => r.id))
      between?.(page)
      if (answer.next_cursor === null) return seen
      cursor = answer.next_cursor
    }
    throw new Error('no last page')
  }

  it('walks newest first by id with a filter, no duplicates and no gaps, while rows are inserted', async () => {
    const { db, insert } = await setup()
    for (let i = 0; i < 103; i++) insert('2026-01-01T00:00:00.000Z', i % 3 === 0 ? 'a' : 'b')
    const before = (db.prepare("SELECT id FROM items WHERE tag = 'a' ORDER BY id DESC").all() as Array<{ id: number }>).map((r) => r.id)
    const query = keysetQuery<Row>(db, { select: 'SELECT * FROM items', where: ['(@tag IS NULL OR tag = @tag)'], key: ['id'], order: 'desc' })
    const list = pagedList<Row>('items', ['integer'], (r) => [r.id])
    const seen = walk((q) => list.read(q, (req) => query({ tag: 'a' }, req.after, req.limit)), 7, () => insert('2026-01-02T00:00:00.000Z', 'a'))
    expect(seen).toEqual(before)
  })

  it('walks a two-column key (time, then id) in ascending order; rows inserted at the end are reached, none twice', async () => {
    const { db, insert } = await setup()
    // Many rows share a timestamp: the id breaks the ties, so no row is skipped at a page boundary.
    for (let i = 0; i < 60; i++) insert(`2026-01-01T00:00:${String(Math.floor(i / 7)).padStart(2, '0')}.000Z`, 'x')
    const query = keysetQuery<Row>(db, { select: 'SELECT * FROM items', key: ['created_at', 'id'], order: 'asc' })
    const list = pagedList<Row>('items', ['string', 'integer'], (r) => [r.created_at, r.id])
    let added = 0
    const seen = walk((q) => list.read(q, (req) => query({}, req.after, req.limit)), 5, () => {
      if (added++ < 4) insert('2027-01-01T00:00:00.000Z', 'late')
    })
    const all = (db.prepare('SELECT id FROM items ORDER BY created_at, id').all() as Array<{ id: number }>).map((r) => r.id)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual(all)
  })

  it('reads the same pages through Sql (async), and the async read pages as the sync one', async () => {
    const { sql, insert } = await setup()
    for (let i = 0; i < 23; i++) insert(`2026-01-01T00:00:${String(Math.floor(i / 4)).padStart(2, '0')}.000Z`, i % 2 ? 'a' : 'b')
    const pages = keysetPages<Row>(sql, { select: 'SELECT * FROM items', where: ['(@tag IS NULL OR tag = @tag)'], key: ['created_at', 'id'], order: 'desc' })
    const list = pagedList<Row>('items', ['string', 'integer'], (r) => [r.created_at, r.id])
    const seen: number[] = []
    let cursor: string | undefined
    for (;;) {
      const page = await list.read({ limit: 4, ...(cursor ? { cursor } : {}) }, (req) => pages({ tag: null }, req.after, req.limit))
      seen.push(...page.rows.map((r) => r.id))
      if (page.next_cursor === null) break
      cursor = page.next_cursor
    }
    const all = (await sql.all<{ id: number }>('SELECT id FROM items ORDER BY created_at DESC, id DESC')).map((r) => r.id)
    expect(seen).toEqual(all)
    expect(seen).toHaveLength(23)
  })
})
