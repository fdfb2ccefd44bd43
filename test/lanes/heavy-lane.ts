// A setup file (vitest.config.ts): a heavy test file holds the heavy lane, an inter-process lock (a file created
// exclusively, holding its maker's pid) from before its first test to after its last, so no two heavy files run at once
// while light files fill the other workers. A lock left by a worker that died is taken over.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { REPO_ROOT } from '../../src/version.js'
import { isHeavy } from './heavy.js'

const LOCK = join(tmpdir(), `ncm-heavy-lane-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`)
/**
 * Longest a heavy file waits for the lane (the others ahead of it may each run for minutes on a loaded machine); past
 * it, the file runs beside the holder rather than fail or hang the suite: the lane spreads load, it proves nothing.
 */
const WAIT_MS = 10 * 60_000
/** A lock still without its pid this long after it was made lost its maker between creating and stamping it. */
const UNSTAMPED_MS = 5_000

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
    const fd = openSync(LOCK, 'wx')
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  let holder: number
  let madeAt: number
  try {
    // Read only: a waiter never creates the lock's content (an empty lock would look unstamped forever).
    holder = Number.parseInt(readFileSync(LOCK, 'utf8'), 10)
    madeAt = statSync(LOCK).mtimeMs
  } catch {
    return false // released meanwhile: the next try may take it
  }
  const abandoned = Number.isInteger(holder) ? !alive(holder) : Date.now() - madeAt > UNSTAMPED_MS
  if (abandoned) rmSync(LOCK, { force: true })
  return false
}

let holding = false
beforeAll(async ({}, file) => {
  const path = (file as { filepath?: unknown } | undefined)?.filepath
  if (typeof path !== 'string' || !isHeavy(relative(REPO_ROOT, path))) return
  const deadline = Date.now() + WAIT_MS
  while (!(holding = tryAcquire()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
  if (!holding) console.warn(`heavy lane still held after ${WAIT_MS / 60_000} min: ${relative(REPO_ROOT, path)} runs beside its holder`)
}, WAIT_MS + 60_000)

afterAll(() => {
  if (holding) rmSync(LOCK, { force: true })
  holding = false
})
