// A setup file (vitest.config.ts): a heavy test file holds the heavy lane, an inter-process lock (a directory, made
// atomically) from before its first test to after its last, so no two heavy files run at once while light files fill
// the other workers. A lock left by a worker that died is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { REPO_ROOT } from '../../src/version.js'
import { isHeavy } from './heavy.js'

const LOCK = join(tmpdir(), `ncm-heavy-lane-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`)
/** Longest a heavy file waits for the lane: the others ahead of it may each run for minutes on a loaded machine. */
const WAIT_MS = 60 * 60_000

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function tryAcquire(): boolean {
  try {
    mkdirSync(LOCK)
    writeFileSync(join(LOCK, 'pid'), String(process.pid))
    return true
  } catch {
    const holder = Number.parseInt(readFileSync(join(LOCK, 'pid'), { encoding: 'utf8', flag: 'a+' }), 10)
    // A holder that died (or a lock made but not yet stamped, read as NaN: wait for its stamp) is replaced.
    if (Number.isInteger(holder) && !alive(holder)) rmSync(LOCK, { recursive: true, force: true })
    return false
  }
}

let holding = false
beforeAll(async ({}, file) => {
  const path = (file as { filepath?: unknown } | undefined)?.filepath
  if (typeof path !== 'string' || !isHeavy(relative(REPO_ROOT, path))) return
  while (!tryAcquire()) await new Promise((resolve) => setTimeout(resolve, 200))
  holding = true
}, WAIT_MS)

afterAll(() => {
  if (holding) rmSync(LOCK, { recursive: true, force: true })
  holding = false
})
