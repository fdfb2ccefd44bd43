// Checkpoints of a SQLite file's WAL, off the loop: a timer looks at the WAL's size and, past a threshold, has a worker
// thread copy it into the database (sqlite-apart.ts). One at a time; a failed one is retried at the next look.
import { statSync } from 'node:fs'
import { checkpointApart } from './sqlite-apart.js'

/** SQLite's own automatic threshold: 1,000 pages of 4 KiB. */
export const WAL_CHECKPOINT_BYTES = 1000 * 4096
/** How often the WAL's size is looked at: its growth past the threshold between two looks is what a busy host adds. */
export const WAL_LOOK_MS = 1000

/** A file's size, or null when it is not there (a WAL before the first write, after a checkpoint's truncation). */
export function fileBytes(file: string): number | null {
  try {
    return statSync(file).size
  } catch {
    return null
  }
}

export interface Checkpoints {
  /** Checkpoints now if the WAL is past the threshold (or a checkpoint is under way: that one); false when not needed. */
  look(): Promise<boolean>
  /** No more checkpoints; resolves once the one under way has ended (or, past STOP_WAIT_MS, its thread is stopped). */
  stop(): Promise<void>
}

/** How long stopping waits for a checkpoint under way before its thread is terminated. */
const STOP_WAIT_MS = 3000

/** `onError`: told of a checkpoint that failed (a full disk is health's business). */
export function checkpointsOf(path: string, thresholdBytes = WAL_CHECKPOINT_BYTES, everyMs = WAL_LOOK_MS, onError?: (err: unknown) => void): Checkpoints {
  let running: { done: Promise<boolean>; stop(): Promise<void> } | null = null
  let stopped = false
  const walBytes = (): number => fileBytes(`${path}-wal`) ?? 0
  const look = (): Promise<boolean> => {
    if (running) return running.done
    if (stopped || walBytes() < thresholdBytes) return Promise.resolve(false)
    const apart = checkpointApart(path)
    const done = apart.rows.then(() => true, (err: unknown) => {
      onError?.(err)
      return false
    }).finally(() => { running = null })
    running = { done, stop: apart.stop }
    return done
  }
  const timer = setInterval(() => void look(), everyMs)
  timer.unref()
  return {
    look,
    async stop() {
      stopped = true
      clearInterval(timer)
      const under = running
      if (!under) return
      let timeout: NodeJS.Timeout | undefined
      const ended = await Promise.race([under.done.then(() => true), new Promise<boolean>((resolve) => { timeout = setTimeout(() => resolve(false), STOP_WAIT_MS) })])
      clearTimeout(timeout)
      if (!ended) await under.stop()
    },
  }
}
