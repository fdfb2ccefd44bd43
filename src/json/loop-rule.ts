// Issue #30's invariant, in one place: on the event loop a request handles at most 64 KiB of JSON as a value. Answers
// larger than that are written in the mill (the serializer's tripwire, plugins/serializer.ts); bodies larger than that
// are parsed in the mill, and what comes back to the loop may hold no more values than the largest body parsed on the
// loop (the body parser's tripwire, plugins/json-body.ts). Under LOOP_TRIPWIRE=throw (every test) both throw, on every
// route.

/** The most JSON a request writes on the event loop; a larger answer is written in the mill. */
export const LOOP_VALUE_MAX_BYTES = 64 * 1024

/**
 * Work linear in bytes the host already holds (a pin hashed and written, a stored run's curve and trades written) is
 * done on the loop up to this many bytes: tens of microseconds, less than a round trip to a worker, and no wait behind
 * heavy work nor a share of the mill's queue for the small reads most are. Past it, it is a short task in the mill.
 */
export const ON_LOOP_WORK_MAX_BYTES = 32 * 1024

/** The most values a body parsed on the loop can hold (`[0,0,…]` in 64 KiB): a body back from the mill may hold no more. */
export const LOOP_BODY_MAX_VALUES = LOOP_VALUE_MAX_BYTES / 2

/** Breaks the rule under test: said on stderr too (the tests' hosts log nothing, and their 500 names only the request id). */
export function tripLoopRule(what: string): never {
  const message = `loop tripwire: ${what}`
  process.stderr.write(`${message}\n`)
  throw new Error(message)
}

/** Whether a parsed JSON value holds at most `max` values (objects, arrays and leaves). */
export const hasAtMostValues = (value: unknown, max: number): boolean => valuesUpTo(value, max) !== null

/**
 * How many values (objects, arrays and leaves) a parsed JSON value holds, or null when more than `max`. Walks with its
 * own stack (values nest 10,000 deep) and stops as soon as the values seen or waiting pass `max`, so it costs O(max)
 * whatever the size.
 */
export function valuesUpTo(value: unknown, max: number): number | null {
  const waiting: unknown[] = [value]
  let seen = 0
  while (waiting.length > 0) {
    const v = waiting.pop()
    seen++
    if (typeof v !== 'object' || v === null) continue
    if (Array.isArray(v)) {
      if (seen + waiting.length + v.length > max) return null
      for (const item of v) waiting.push(item)
      continue
    }
    for (const key in v) {
      waiting.push((v as Record<string, unknown>)[key])
      if (seen + waiting.length > max) return null
    }
  }
  return seen <= max ? seen : null
}
