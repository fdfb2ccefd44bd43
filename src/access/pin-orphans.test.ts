// Pin parts a crash left without their row go after an hour, on SQLite and PostgreSQL; parts of pins, of pins being
// written and of content pinned again are kept; each sweep looks at a bounded slice of the part keys.
import { afterAll, describe, expect, it } from 'vitest'
import { ORPHAN_AFTER_MS, SWEEP_PARTS } from '../store/orphan-sweep.js'
import type { Sql } from '../store/sql.js'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { pinBytesOf, writePinParts } from './pin-parts.js'
import { pinRepository, readPin } from './pins.js'
import { ON_LOOP } from './test-pins.js'

const stores = testStores()
afterAll(() => stores.cleanup())

const partsOf = async (sql: Sql, digest?: string) =>
  Number((await sql.get<{ n: number | string }>(
    `SELECT count(*) AS n FROM pin_parts${digest ? ' WHERE digest = ?' : ''}`, digest ? [digest] : [],
  ))!.n)

describe.each(TEST_BACKENDS)('pin orphan sweep on %s', (backend) => {
  it('removes the parts of a pin whose row never came once they are an hour old, and keeps pinned ones', async () => {
    const { sql } = await stores.open(backend)
    const repo = pinRepository(sql)
    const kept = pinBytesOf('pinned, row and all', 4)
    await repo.put(kept, 'text/plain', null, 1_000)
    // A crash between the parts and the row: parts of a pin that never was.
    const ghost = pinBytesOf('parts without a row', 4)
    await writePinParts(sql, ghost.digest, ghost.parts, 1_000)

    expect(await repo.sweepOrphans(1_000 + ORPHAN_AFTER_MS - 1)).toBe(0) // younger than an hour: its row may be on the way
    expect(await partsOf(sql, ghost.digest)).toBe(ghost.parts.length)
    expect(await repo.sweepOrphans(1_000 + ORPHAN_AFTER_MS)).toBe(ghost.parts.length)
    expect(await partsOf(sql, ghost.digest)).toBe(0)
    expect(await partsOf(sql, kept.digest)).toBe(kept.parts.length)
    expect((await readPin(repo, kept.digest, ON_LOOP)).content.text()).toBe('"pinned, row and all"')
  })

  it('keeps old parts that a put of the same content writes again, and the pin reads whole', async () => {
    const { sql } = await stores.open(backend)
    const repo = pinRepository(sql)
    const bytes = pinBytesOf('cut short once, pinned again later', 4)
    await writePinParts(sql, bytes.digest, bytes.parts.slice(0, 2), 0) // the first try died after two parts
    const later = 10 * ORPHAN_AFTER_MS
    // The second try has written its parts again (at its own time) but not yet its row when the sweep comes.
    await writePinParts(sql, bytes.digest, bytes.parts, later)
    expect(await repo.sweepOrphans(later)).toBe(0)
    await repo.put(bytes, 'text/plain', null, later)
    expect(await repo.sweepOrphans(later + 2 * ORPHAN_AFTER_MS)).toBe(0)
    expect((await readPin(repo, bytes.digest, ON_LOOP)).content.text()).toBe('"cut short once, pinned again later"')
  })

  it('looks at a bounded slice of part keys a sweep, the whole table in turn', async () => {
    const { sql } = await stores.open(backend)
    const repo = pinRepository(sql)
    const ghosts = SWEEP_PARTS + 44
    for (let i = 0; i < ghosts; i++) {
      await sql.run('INSERT INTO pin_parts (digest, seq, created_at, content) VALUES (?, 0, 0, ?)', [`sha256:ghost-${String(i).padStart(3, '0')}`, Buffer.from('x')])
    }
    expect(await repo.sweepOrphans(ORPHAN_AFTER_MS)).toBe(SWEEP_PARTS) // the first slice: all ghosts
    expect(await partsOf(sql)).toBe(44)
    expect(await repo.sweepOrphans(ORPHAN_AFTER_MS)).toBe(44)
    expect(await partsOf(sql)).toBe(0)
  })
})
