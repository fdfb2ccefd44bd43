// One way to page every list of the host: `limit` and an opaque `cursor` in, `next_cursor` out. Pages are keyset
// positions (the sort key of the last row shown), never OFFSETs, so rows inserted while a client walks a list never
// shift it into duplicates or gaps. The SQL side of the same idea is src/store/keyset.ts.
import { z } from 'zod'
import { Refusal } from './refusal.js'

export const PAGE_LIMIT_MAX = 500
export const PAGE_LIMIT_DEFAULT = 50
/** A cursor longer than this is refused unread. */
export const CURSOR_MAX_CHARS = 1024
const CURSOR_VERSION = 1

export type KeyPart = string | number
export type KeyType = 'string' | 'integer'
export type Position = readonly KeyPart[]

/** Query fields of every paged list; spread them into a route's querystring schema or an operation's input. */
export const pageQueryFields = {
  limit: z.coerce.number().int().min(1).optional()
    .meta({ maximum: PAGE_LIMIT_MAX })
    .describe(`items per page, 1–${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_DEFAULT}); more is refused with over_limit`),
  cursor: z.string().min(1).max(CURSOR_MAX_CHARS).optional()
    .describe('next_cursor of the previous page, unchanged; absent for the first page'),
}

export interface PageQuery {
  limit?: number | undefined
  cursor?: string | undefined
}

/** The answer's paging fields, next to the list itself (named after what it holds: `runs`, `fills`…). */
export const pageFields = {
  limit: z.number().int().describe('the page size used'),
  next_cursor: z.string().nullable().describe('pass as ?cursor= for the next page; null on the last page'),
}

/** `{ <name>: item[], limit, next_cursor }`: the response schema of a paged list. */
export function pageSchema<K extends string, T extends z.ZodType>(name: K, item: T) {
  return z.object({ [name]: z.array(item), ...pageFields } as { [P in K]: z.ZodArray<T> } & typeof pageFields)
}

export interface PageRequest {
  limit: number
  /** Keyset position of the last row of the previous page; null for the first page. */
  after: Position | null
}

export interface Page<T> {
  rows: T[]
  limit: number
  next_cursor: string | null
}

/**
 * A paged list: its name (cursors of one list are refused by another) and the types of its sort key. `request`
 * checks a query before any read; `page` turns up to limit + 1 rows read after that position into the answer.
 */
export interface PagedList<T> {
  readonly name: string
  request(query: PageQuery): PageRequest
  page(rows: T[], request: PageRequest): Page<T>
  /** request + page around one read of up to limit + 1 rows after the request's position (a database read may be async). */
  read(query: PageQuery, fetch: (request: PageRequest) => T[]): Page<T>
  read(query: PageQuery, fetch: (request: PageRequest) => Promise<T[]>): Promise<Page<T>>
}

export function pagedList<T>(name: string, key: readonly KeyType[], keyOf: (row: T) => Position): PagedList<T> {
  const list: PagedList<T> = {
    name,
    request(query) {
      const limit = query.limit ?? PAGE_LIMIT_DEFAULT
      if (limit > PAGE_LIMIT_MAX) {
        throw new Refusal('over_limit', `limit ${limit} is over the page limit of ${PAGE_LIMIT_MAX}; follow next_cursor for more`, {
          issues: [{ path: 'limit', message: `at most ${PAGE_LIMIT_MAX}` }],
          hints: { limit: { name: 'page_limit', value: PAGE_LIMIT_MAX, requested: limit } },
        })
      }
      return { limit, after: query.cursor === undefined ? null : decodeCursor(name, key, query.cursor) }
    },
    page(rows, request) {
      if (rows.length <= request.limit) return { rows, limit: request.limit, next_cursor: null }
      const shown = rows.slice(0, request.limit)
      return { rows: shown, limit: request.limit, next_cursor: encodeCursor(name, keyOf(shown[shown.length - 1]!)) }
    },
    read(query: PageQuery, fetch: (request: PageRequest) => T[] | Promise<T[]>): never {
      const request = list.request(query)
      const rows = fetch(request)
      return (rows instanceof Promise ? rows.then((read) => list.page(read, request)) : list.page(rows, request)) as never
    },
  }
  return list
}

/** The answer of a paged list: `{ <name>: rows, limit, next_cursor }` (the shape pageSchema describes). */
export function pageAnswer<K extends string, T>(name: K, page: Page<T>): { [P in K]: T[] } & Omit<Page<T>, 'rows'>
export function pageAnswer<K extends string, T, U>(name: K, page: Page<T>, view: (row: T) => U): { [P in K]: U[] } & Omit<Page<T>, 'rows'>
export function pageAnswer<T>(name: string, page: Page<T>, view?: (row: T) => unknown) {
  return { [name]: view ? page.rows.map(view) : page.rows, limit: page.limit, next_cursor: page.next_cursor }
}

export function encodeCursor(list: string, position: Position): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, list, position]), 'utf8').toString('base64url')
}

/** The keyset position a cursor carries; anything else is refused with invalid_input naming the cursor. */
export function decodeCursor(list: string, key: readonly KeyType[], cursor: string): Position {
  const refuse = (why: string): never => {
    throw new Refusal('invalid_input', `cursor: ${why}; pass the next_cursor of a previous page of ${list} unchanged`, {
      issues: [{ path: 'cursor', message: why }],
    })
  }
  if (cursor.length > CURSOR_MAX_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) refuse('not a cursor (base64url expected)')
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return refuse('not a cursor (undecodable)')
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || decoded[0] !== CURSOR_VERSION) return refuse('not a cursor of this host')
  const [, owner, position] = decoded as [number, unknown, unknown]
  if (owner !== list) return refuse(`a cursor of ${typeof owner === 'string' ? owner : 'another list'}, not of ${list}`)
  if (!Array.isArray(position) || position.length !== key.length) return refuse('a cursor of another shape')
  key.forEach((type, i) => {
    const part: unknown = position[i]
    const fits = type === 'integer' ? Number.isSafeInteger(part) : typeof part === 'string' && part.length <= 256
    if (!fits) refuse('a cursor of another shape')
  })
  return position as Position
}
