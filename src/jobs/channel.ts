// Job events as a publish/subscribe channel: in-process here; a distributed backend swaps in Redis pub/sub behind
// the same two methods (events are plain JSON).
import { EventEmitter } from 'node:events'
import type { JobEvent } from './types.js'

export interface JobChannel {
  publish(event: JobEvent): void
  /** `jobId` or '*' for every job; returns the unsubscribe function. */
  subscribe(topic: string, listener: (event: JobEvent) => void): () => void
}

export function createLocalChannel(): JobChannel {
  const emitter = new EventEmitter()
  // Many SSE clients may watch one job; the default warning at 10 listeners is noise here.
  emitter.setMaxListeners(0)
  return {
    publish(event) {
      emitter.emit(event.job.id, event)
      emitter.emit('*', event)
    },
    subscribe(topic, listener) {
      emitter.on(topic, listener)
      return () => emitter.off(topic, listener)
    },
  }
}
