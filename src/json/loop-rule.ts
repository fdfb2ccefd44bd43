// Issue #30's invariant, in one place: on the event loop a request handles at most 64 KiB of JSON as a value. Answers
// larger than that are written in the mill (the serializer's tripwire, plugins/serializer.ts); bodies larger than that
// are parsed in the mill, and what comes back to the loop may hold no more values than the largest body parsed on the
// loop (the body parser's tripwire, plugins/json-body.ts).

/** The most JSON a request writes on the event loop; a larger answer is written in the mill. */
export const LOOP_VALUE_MAX_BYTES = 64 * 1024

/** The most values a body parsed on the loop can hold (`[0,0,…]` in 64 KiB): a body back from the mill may hold no more. */
export const LOOP_BODY_MAX_VALUES = LOOP_VALUE_MAX_BYTES / 2

/**
 * Whether a parsed JSON value holds at most `max` values (objects, arrays and leaves). Walks with its own stack (values
 * nest 10,000 deep) and stops as soon as the values seen or waiting pass `max`, so it costs O(max) whatever the size.
 */
export function hasAtMostValues(value: unknown, max: number): boolean {
  const waiting: unknown[] = [value]
  let seen = 0
  while (waiting.length > 0) {
    const v = waiting.pop()
    seen++
    if (typeof v !== 'object' || v === null) continue
    if (Array.isArray(v)) {
      if (seen + waiting.length + v.length > max) return false
      for (const item of v) waiting.push(item)
      continue
    }
    for (const key in v) {
      waiting.push((v as Record<string, unknown>)[key])
      if (seen + waiting.length > max) return false
    }
  }
  return seen <= max
}
