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
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { readonly: workerData.readonly, fileMustExist: true })
try {
  db.pragma('busy_timeout = 5000')
  parentPort.postMessage(db.pragma(workerData.pragma))
} finally {
  db.close()
}
`

const driver = createRequire(import.meta.url).resolve('better-sqlite3')

function onWorker(path: string, pragma: string, readonly: boolean): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, path, pragma, readonly } })
    let rows: Record<string, unknown>[] | null = null
    worker.once('message', (answer: Record<string, unknown>[]) => { rows = answer })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (rows) resolve(rows)
      else reject(new Error(`PRAGMA ${pragma} stopped without an answer (worker exit code ${code})`))
    })
  })
}

/** The pragma's rows, read from the file at `path` on a worker thread. */
export const pragmaApart = (path: string, pragma: CheckPragma): Promise<Record<string, unknown>[]> => onWorker(path, pragma, true)

/**
 * Copies the WAL's committed frames into the database file on a worker thread (PASSIVE: it waits for no reader or
 * writer). The host's connection does not checkpoint by itself (wal_autocheckpoint = 0): its automatic checkpoint runs
 * inside the COMMIT that crosses 1,000 pages, and after a 250k-bar import that COMMIT held the loop 73–183 ms.
 */
export const checkpointApart = (path: string): Promise<Record<string, unknown>[]> => onWorker(path, 'wal_checkpoint(PASSIVE)', false)
