// An answer whose buffers move to the waiting thread instead of being copied: the task is done with them, and a copy
// of megabytes is made in one stretch of the event loop when the answer arrives.
import { Piscina } from 'piscina'
import { inTurns } from '../sched/turns.js'

const MOVED = Symbol('moved buffers')

/** Marks `value` (returned by a task) so that `buffers` are transferred with it; a direct caller sees `value` as is. */
export function moving<T extends object>(value: T, buffers: ArrayBuffer[]): T {
  Object.defineProperty(value, MOVED, { value: buffers, enumerable: false })
  return value
}

/**
 * Bytes to send to a task by moving them (RunOptions.transfer): a view that is its whole buffer moves as it is; any
 * other (a slice of Node's pool, or of a buffer that stays here) is copied first, as only its own bytes may go.
 */
export function movable(views: readonly Uint8Array[]): { views: Uint8Array[]; transfer: ArrayBuffer[] } {
  const transfer = new Set<ArrayBuffer>()
  const moved = views.map((view) => {
    const whole = view.buffer instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && !transfer.has(view.buffer)
    const own = whole ? view : new Uint8Array(view)
    transfer.add(own.buffer as ArrayBuffer)
    return own
  })
  return { views: moved, transfer: [...transfer] }
}

/** Bytes copied at a time by `movedCopies`: a fraction of a millisecond (a 14 MB copy in one stretch took 6–16 ms). */
const COPY_BLOCK_BYTES = 1024 * 1024

/**
 * Copies of bytes that stay here (a job's stored input, which a run tried again needs), to move to a task: in blocks of
 * at most COPY_BLOCK_BYTES, a loop turn between two. The task joins them.
 */
export async function movedCopies(views: readonly Uint8Array[]): Promise<{ views: Uint8Array[]; transfer: ArrayBuffer[] }> {
  const copies: Uint8Array[] = []
  for await (const block of inTurns(blocksOf(views))) copies.push(new Uint8Array(block))
  return movable(copies)
}

function* blocksOf(views: readonly Uint8Array[]): Generator<Uint8Array> {
  for (const view of views) {
    for (let at = 0; at < view.byteLength; at += COPY_BLOCK_BYTES) yield view.subarray(at, at + COPY_BLOCK_BYTES)
  }
}

/** What the worker posts for a task's answer: piscina's movable wrapper when the answer moves buffers. */
export function postable(result: unknown): unknown {
  const buffers = typeof result === 'object' && result !== null ? (result as { [MOVED]?: ArrayBuffer[] })[MOVED] : undefined
  if (!buffers || buffers.length === 0) return result
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result } as never)
}
