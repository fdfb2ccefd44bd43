// Whole-file work on a SQLite database on its own thread: PRAGMA integrity_check reads every page (0.1 s at 400k bars,
// growing with every import) and a checkpoint writes every page the WAL holds, which on the one connection would hold
// the event loop for all of it.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

export type CheckPragma = 'integrity_check' | 'foreign_key_check'

/**
 * A worker of a few lines, evaluated as CommonJS (no loader needed from source or from the build): its own connection
 * to the file (read-only for the checks), the pragma, its rows back. A check reads the last committed state (WAL lets a
 * reader beside the writer); an open transaction of the host is not seen, as it would not be by another process.
 */
// Whatever the pragma meets (a full disk, a busy file) comes back as a message: an exception left to escape the thread
// while the process was exiting aborted it (exit 134).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
let db = null
let answer
try {
  const Database = require(workerData.driver)
  db = new Database(workerData.path, { readonly: workerData.readonly, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  answer = { rows: db.pragma(workerData.pragma) }
} catch (err) {
  answer = { error: String((err && err.message) || err), code: err && err.code }
} finally {
  try { if (db) db.close() } catch {}
}
parentPort.postMessage(answer)
`

const driver = createRequire(import.meta.url).resolve('better-sqlite3')

type Answer = { rows: Record<string, unknown>[] } | { error: string; code?: string }

function onWorker(path: string, pragma: string, readonly: boolean): { rows: Promise<Record<string, unknown>[]>; stop(): Promise<void> } {
  const worker = new Worker(WORKER, { eval: true, workerData: { driver, path, pragma, readonly } })
  const rows = new Promise<Record<string, unknown>[]>((resolve, reject) => {
    let answer: Answer | null = null
    worker.once('message', (message: Answer) => { answer = message })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (answer && 'rows' in answer) resolve(answer.rows)
      else if (answer) reject(Object.assign(new Error(`PRAGMA ${pragma}: ${answer.error}`), { code: answer.code }))
      else reject(new Error(`PRAGMA ${pragma} stopped without an answer (worker exit code ${code})`))
    })
  })
  return { rows, stop: async () => { await worker.terminate() } }
}

/** The pragma's rows, read from the file at `path` on a worker thread. */
export const pragmaApart = (path: string, pragma: CheckPragma): Promise<Record<string, unknown>[]> => onWorker(path, pragma, true).rows

/**
 * Copies the WAL's committed frames into the database file on a worker thread (PASSIVE: it waits for no reader or
 * writer). The host's connection does not checkpoint by itself (wal_autocheckpoint = 0): its automatic checkpoint runs
 * inside the COMMIT that crosses 1,000 pages, and after a 250k-bar import that COMMIT held the loop 73–183 ms.
 */
export const checkpointApart = (path: string) => onWorker(path, 'wal_checkpoint(PASSIVE)', false)
