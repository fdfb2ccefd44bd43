// countRows: exact on both databases, for rowid tables and WITHOUT ROWID ones (bars), across slice edges; on SQLite
// the loop turns between slices.
import { afterAll, describe, expect, it } from 'vitest'
import { COUNT_STEP, countRows } from './count.js'
import { TEST_BACKENDS, testStores } from './test-backends.js'
import { turnsDuring } from './test-turns.js'

const stores = testStores()
afterAll(() => stores.cleanup())

describe.each(TEST_BACKENDS)('countRows on %s', (backend) => {
  it('counts a rowid table and a composite-key table exactly, on and around slice edges', async () => {
    const { sql } = await stores.open(backend)
    await sql.run('CREATE TABLE plain (id INTEGER PRIMARY KEY, v TEXT)')
    await sql.run(`CREATE TABLE keyed (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b))${backend === 'sqlite' ? ' WITHOUT ROWID' : ''}`)
    expect(await countRows(sql, 'plain')).toBe(0)
    for (const n of [1, COUNT_STEP - 1, COUNT_STEP, 2 * COUNT_STEP + 7]) {
      await sql.run('DELETE FROM plain')
      await sql.run('DELETE FROM keyed')
      // Generated server-side: a few hundred thousand rows without a statement per row.
      await sql.run(`INSERT INTO plain (id, v) SELECT g, 'x' FROM ${series(backend, n)}`)
      // Few distinct leading values, so slices end inside a run of equal a's: only the whole key orders them.
      await sql.run(`INSERT INTO keyed (a, b) SELECT g % 3, g FROM ${series(backend, n)}`)
      expect(await countRows(sql, 'plain')).toBe(n)
      expect(await countRows(sql, 'keyed')).toBe(n)
    }
  })

  it.runIf(backend === 'sqlite')('lets the event loop turn between slices', async () => {
    const { sql } = await stores.open(backend)
    await sql.run('CREATE TABLE many (id INTEGER PRIMARY KEY)')
    await sql.run(`INSERT INTO many (id) SELECT g FROM ${series(backend, 4 * COUNT_STEP)}`)
    // A count in one statement would let the loop turn once at most.
    const { value: counted, turns } = await turnsDuring(() => countRows(sql, 'many'))
    expect(counted).toBe(4 * COUNT_STEP)
    expect(turns).toBeGreaterThanOrEqual(4) // a turn at each of the four slice edges
  })
})

/** The integers 1..n as a table of one column `g`. */
function series(backend: string, n: number): string {
  return backend === 'sqlite'
    ? `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${n}) SELECT g FROM s)`
    : `generate_series(1, ${n}) AS s(g)`
}
