// Migration 0008 moves pin content stored on the pins row (0002) into pin_parts, and 0009 gives each part the time it
// was written, on both databases: a database written before them reads every pin the same way after them.
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS } from '../store/test-backends.js'
import { acrossMigration, type Cleanup } from '../store/test-migrations.js'
import { ORPHAN_AFTER_MS } from '../store/orphan-sweep.js'
import { pinRepository, readPin } from './pins.js'
import { ON_LOOP } from './test-pins.js'

const cleanups: Cleanup[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')

describe.each(TEST_BACKENDS)('migration 0008 on %s', (dialect) => {
  it("moves each pin's content into its parts and drops the column", async () => {
    const pins: Array<[string, string, string]> = [['héllo, pins\n', 'text/plain', 'a'], ['{"a":1}', 'application/json', 'b']]
    const sql = await acrossMigration(dialect, '0008', async (old) => {
      for (const [text, mediaType, at] of pins) {
        await old.run('INSERT INTO pins (digest, content, media_type, label, size, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          [sha256(text), Buffer.from(text, 'utf8'), mediaType, null, Buffer.byteLength(text), `2026-01-01T00:00:0${at === 'a' ? 1 : 2}.000Z`])
      }
    }, cleanups)
    const repo = pinRepository(sql)
    for (const [text, mediaType] of pins) {
      const read = await readPin(repo, sha256(text), ON_LOOP)
      expect(read).toMatchObject({ chars: text.length, record: { media_type: mediaType, size: Buffer.byteLength(text) } })
      expect(read.content.text()).toBe(JSON.stringify(text))
    }
    expect((await repo.page(null, 5)).map((p) => p.digest)).toEqual([sha256(pins[1]![0]), sha256(pins[0]![0])])
    await expect(sql.get('SELECT content FROM pins')).rejects.toThrow(/content/)
  })
})

describe.each(TEST_BACKENDS)('migration 0009 on %s', (dialect) => {
  it('keeps every part, written at 0: a pin reads whole, parts without a row go at the next sweep', async () => {
    const text = 'parts from before 0009'
    const sql = await acrossMigration(dialect, '0009', async (old) => {
      await old.run('INSERT INTO pin_parts (digest, seq, content) VALUES (?, 0, ?), (?, 1, ?)',
        [sha256(text), Buffer.from('parts from '), sha256(text), Buffer.from('before 0009')])
      await old.run('INSERT INTO pins (digest, media_type, label, size, created_at) VALUES (?, ?, ?, ?, ?)',
        [sha256(text), 'text/plain', null, Buffer.byteLength(text), '2026-01-01T00:00:00.000Z'])
      await old.run('INSERT INTO pin_parts (digest, seq, content) VALUES (?, 0, ?)', ['sha256:orphan', Buffer.from('no row')])
    }, cleanups)
    const repo = pinRepository(sql)
    const readBack = async () => (await readPin(repo, sha256(text), ON_LOOP)).content.text()
    expect(await readBack()).toBe(JSON.stringify(text))
    expect((await sql.all<{ created_at: number | string }>('SELECT created_at FROM pin_parts')).map((r) => Number(r.created_at))).toEqual([0, 0, 0])
    expect(await repo.sweepOrphans(ORPHAN_AFTER_MS)).toBe(1)
    expect(await readBack()).toBe(JSON.stringify(text))
  })
})
