// WAL checkpoints of a SQLite file on a worker thread: the host's connection leaves them alone, a look past the
// threshold copies the WAL into the database, one at a time.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from './index.js'
import { checkpointsOf } from './sqlite-checkpoint.js'

const dir = mkdtempSync(join(tmpdir(), 'ncm-checkpoint-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('WAL checkpoints of a SQLite file', () => {
  it('are not taken by a COMMIT on the host connection; a look past the threshold takes one on a worker', async () => {
    const path = join(dir, 'hub.sqlite')
    const store = await openStore({ path })
    expect(store.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    const value = 'x'.repeat(4000)
    await store.sql.transaction(async (tx) => {
      for (let i = 0; i < 1500; i++) await tx.run('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?)', [`k${i}`, value, 'now'])
    })
    // 1,500 rows of 4 KB are past SQLite's 1,000-page threshold: with its automatic checkpoint the COMMIT would have copied them.
    const before = (store.sqlite!.pragma('wal_checkpoint(NOOP)') as Array<{ log: number; checkpointed: number }>)[0]!
    expect(before.log).toBeGreaterThan(1000)
    expect(before.checkpointed).toBe(0)

    const checkpoints = checkpointsOf(path, 1024 * 1024, 60_000)
    try {
      const [first, second] = [checkpoints.look(), checkpoints.look()]
      expect(await first).toBe(true)
      expect(await second).toBe(true)
      const after = (store.sqlite!.pragma('wal_checkpoint(NOOP)') as Array<{ log: number; checkpointed: number }>)[0]!
      expect(after.checkpointed).toBe(after.log)
      expect(statSync(path).size).toBeGreaterThan(1500 * 4000)
      expect(await checkpointsOf(join(dir, 'none.sqlite'), 1, 60_000).look()).toBe(false)
    } finally {
      checkpoints.stop()
      await store.close()
    }
  })
})
