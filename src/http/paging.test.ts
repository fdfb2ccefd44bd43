// The paging module: cursor codec round trips and refusals, limits, and keyset walks over SQLite stable under inserts.
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, pagedList, type PageQuery } from './paging.js'
import { Refusal } from './refusal.js'
import { openStore } from '../store/index.js'
import { keysetPages } from '../store/keyset.js'

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
    const { sql } = await openStore({ path: ':memory:' })
    await sql.run('CREATE TABLE items (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, tag TEXT NOT NULL)')
    const insert = async (createdAt: string, tag: string) =>
      (await sql.get<{ id: number }>('INSERT INTO items (created_at, tag) VALUES (?, ?) RETURNING id', [createdAt, tag]))!.id
    const ids = async (text: string) => (await sql.all<{ id: number }>(text)).map((r) => r.id)
    return { sql, insert, ids }
  }
  type Row = { id: number; created_at: string; tag: string }

  async function walk(read: (q: PageQuery) => Promise<{ rows: Row[]; next_cursor: string | null }>, limit: number, between?: (page: number) => Promise<unknown>) {
    const seen: number[] = []
    let cursor: string | undefined
    for (let page = 0; page < 1000; page++) {
      const answer = await read({ limit, ...(cursor ? { cursor } : {}) })
      seen.push(...answer.rows.map((r) => r.id))
      await between?.(page)
      if (answer.next_cursor === null) return seen
      cursor = answer.next_cursor
    }
    throw new Error('no last page')
  }

  it('walks newest first by id with a filter, no duplicates and no gaps, while rows are inserted', async () => {
    const { sql, insert, ids } = await setup()
    for (let i = 0; i < 103; i++) await insert('2026-01-01T00:00:00.000Z', i % 3 === 0 ? 'a' : 'b')
    const before = await ids("SELECT id FROM items WHERE tag = 'a' ORDER BY id DESC")
    const pages = keysetPages<Row>(sql, { select: 'SELECT * FROM items', where: ['(tag = @tag OR @tag IS NULL)'], key: ['id'], order: 'desc' })
    const list = pagedList<Row>('items', ['integer'], (r) => [r.id])
    const seen = await walk((q) => list.read(q, (req) => pages({ tag: 'a' }, req.after, req.limit)), 7, () => insert('2026-01-02T00:00:00.000Z', 'a'))
    expect(seen).toEqual(before)
  })

  it('walks a two-column key (time, then id) in ascending order; rows inserted at the end are reached, none twice', async () => {
    const { sql, insert, ids } = await setup()
    // Many rows share a timestamp: the id breaks the ties, so no row is skipped at a page boundary.
    for (let i = 0; i < 60; i++) await insert(`2026-01-01T00:00:${String(Math.floor(i / 7)).padStart(2, '0')}.000Z`, 'x')
    const pages = keysetPages<Row>(sql, { select: 'SELECT * FROM items', key: ['created_at', 'id'], order: 'asc' })
    const list = pagedList<Row>('items', ['string', 'integer'], (r) => [r.created_at, r.id])
    let added = 0
    const seen = await walk((q) => list.read(q, (req) => pages({}, req.after, req.limit)), 5, async () => {
      if (added++ < 4) await insert('2027-01-01T00:00:00.000Z', 'late')
    })
    const all = await ids('SELECT id FROM items ORDER BY created_at, id')
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual(all)
  })

  it('walks a two-column key newest first with an absent filter (null)', async () => {
    const { sql, insert, ids } = await setup()
    for (let i = 0; i < 23; i++) await insert(`2026-01-01T00:00:${String(Math.floor(i / 4)).padStart(2, '0')}.000Z`, i % 2 ? 'a' : 'b')
    const pages = keysetPages<Row>(sql, { select: 'SELECT * FROM items', where: ['(tag = @tag OR @tag IS NULL)'], key: ['created_at', 'id'], order: 'desc' })
    const list = pagedList<Row>('items', ['string', 'integer'], (r) => [r.created_at, r.id])
    const seen = await walk((q) => list.read(q, (req) => pages({ tag: null }, req.after, req.limit)), 4)
    expect(seen).toEqual(await ids('SELECT id FROM items ORDER BY created_at DESC, id DESC'))
    expect(seen).toHaveLength(23)
  })
})
