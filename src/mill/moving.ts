// An answer whose buffers move to the waiting thread instead of being copied: the task is done with them, and a copy
// of megabytes is made in one stretch of the event loop when the answer arrives.
import { Piscina } from 'piscina'

const MOVED = Symbol('moved buffers')

/** Marks `value` (returned by a task) so that `buffers` are transferred with it; a direct caller sees `value` as is. */
export function moving<T extends object>(value: T, buffers: ArrayBuffer[]): T {
  Object.defineProperty(value, MOVED, { value: buffers, enumerable: false })
  return value
}

/** What the worker posts for a task's answer: piscina's movable wrapper when the answer moves buffers. */
export function postable(result: unknown): unknown {
  const buffers = typeof result === 'object' && result !== null ? (result as { [MOVED]?: ArrayBuffer[] })[MOVED] : undefined
  if (!buffers || buffers.length === 0) return result
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result } as never)
}
