// A turn of the event loop for long runs of statements. SQLite answers the async Sql with already-settled promises
// (microtasks), so a loop of awaited statements never lets sockets, timers or health checks in unless it yields.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * The items (pages of a table, parts, steps of a scan) one by one, a turn of the loop between two: each turn holds the
 * caller's work on one item and the making of the next, and an item that is the last costs no turn. The one way a
 * long scan yields, so a caller pages through its table without turning the loop itself.
 */
export async function* inTurns<T>(items: Iterable<T> | AsyncIterable<T>): AsyncGenerator<T> {
  const source = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]()
  let next = await source.next()
  try {
    while (!next.done) {
      yield next.value
      next = await source.next()
      if (!next.done) await nextTurn()
    }
  } finally {
    // a caller that stops early (break, throw) closes the source too
    if (!next.done) await source.return?.()
  }
}

/** 0, 1, … up to `end` (exclusive), for scans by index. */
export function* upTo(end: number, step = 1): Generator<number> {
  for (let at = 0; at < end; at += step) yield at
}

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
