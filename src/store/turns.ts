// A turn of the event loop for long runs of statements. SQLite answers the async Sql with already-settled promises
// (microtasks), so a loop of awaited statements never lets sockets, timers or health checks in unless it yields.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

// Work that many requests of one poll of the sockets would otherwise start back to back (dataset pages, database
// stats: each ~1-2.5 ms of synchronous reads, 30 at once ~70 ms) waits for a turn of its own. One chain for the whole process: the next
// caller's turn is asked for only once this one has had its own.
let last: Promise<void> = Promise.resolve()

/** Resolves in a turn of the loop no other caller of it resumes in. */
export function ownTurn(): Promise<void> {
  const mine = last.then(nextTurn)
  last = mine
  return mine
}
