// Migration 0008 moves pin content stored on the pins row (0002) into pin_parts, on both databases: a database written
// before it reads every pin the same way after it.
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS } from '../store/test-backends.js'
import { acrossMigration, type Cleanup } from '../store/test-migrations.js'
import { pinRepository } from './pins.js'

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
      const read = await repo.get(sha256(text))
      expect(read).toMatchObject({ text, actualDigest: sha256(text), record: { media_type: mediaType, size: Buffer.byteLength(text) } })
    }
    expect((await repo.page(null, 5)).map((p) => p.digest)).toEqual([sha256(pins[1]![0]), sha256(pins[0]![0])])
    await expect(sql.get('SELECT content FROM pins')).rejects.toThrow(/content/)
  })
})
