// For tests of work that must let the event loop turn (SQLite answers the async Sql in microtasks, so a run of
// statements never yields unless it is made to): counts the turns while the work runs.

/** Runs fn, counting the turns of the event loop (a chain of setImmediate callbacks) until it settles. */
export async function turnsDuring<T>(fn: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0
  let running = true
  const tick = () => {
    turns++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  try {
    return { value: await fn(), turns }
  } finally {
    running = false
  }
}
