// Job events as a publish/subscribe channel: in-process, or shared by every replica over a message bus (Redis
// pub/sub) behind the same two methods (events are plain JSON).
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

/** What the shared channel needs of a bus (src/redis/bus.ts): a process does not hear its own messages back. */
export interface EventBus {
  publish(channel: string, message: unknown): void
  subscribe(channel: string, listener: (message: unknown) => void): () => void
}

/**
 * Events reach subscribers on every replica: this process's own at once (with a succeeded job's answer), the others'
 * through the bus without the answer (it may be megabytes; a watcher elsewhere reads it from the database).
 */
export function createSharedChannel(bus: EventBus, busChannel: string): JobChannel {
  const local = createLocalChannel()
  bus.subscribe(busChannel, (message) => local.publish(message as JobEvent))
  return {
    publish(event) {
      local.publish(event)
      const { result: _answer, ...travelling } = event
      bus.publish(busChannel, travelling)
    },
    subscribe: local.subscribe,
  }
}
