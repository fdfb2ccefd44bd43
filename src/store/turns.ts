// A turn of the event loop for long runs of statements. SQLite answers the async Sql with already-settled promises
// (microtasks), so a loop of awaited statements never lets sockets, timers or health checks in unless it yields.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
