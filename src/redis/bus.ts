// Redis pub/sub as a message bus between replicas: JSON messages on named channels, one subscriber connection per
// process. A process does not hear its own messages back (it delivers those itself, at once, with what must not travel).
import { randomUUID } from 'node:crypto'
import { openRedis, type RedisClient } from './connection.js'

export interface MessageBus {
  /** Sends to every other process subscribed to channel; a failure (Redis away) is reported, never thrown. */
  publish(channel: string, message: unknown): void
  /** Messages other processes publish on channel; returns the unsubscribe function. */
  subscribe(channel: string, listener: (message: unknown) => void): () => void
  close(): Promise<void>
}

interface Envelope { from: string; body: unknown }

export function createRedisBus(url: string, publisher: RedisClient, onError: (err: Error, what: string) => void): MessageBus {
  const self = randomUUID()
  const subscriber = openRedis(url, 'subscriber')
  const listeners = new Map<string, Set<(message: unknown) => void>>()

  subscriber.on('message', (channel: string, text: string) => {
    const set = listeners.get(channel)
    if (!set) return
    let envelope: Envelope
    try {
      envelope = JSON.parse(text) as Envelope
    } catch (err) {
      return onError(err as Error, `a message on ${channel} that is not JSON`)
    }
    if (envelope.from === self) return
    for (const listener of set) listener(envelope.body)
  })

  return {
    publish(channel, message) {
      publisher.publish(channel, JSON.stringify({ from: self, body: message } satisfies Envelope))
        .catch((err: Error) => onError(err, `publish on ${channel}`))
    },
    subscribe(channel, listener) {
      let set = listeners.get(channel)
      if (!set) {
        set = new Set()
        listeners.set(channel, set)
        // ioredis re-subscribes by itself after a reconnect.
        subscriber.subscribe(channel).catch((err: Error) => onError(err, `subscribe to ${channel}`))
      }
      set.add(listener)
      return () => {
        set.delete(listener)
      }
    },
    async close() {
      listeners.clear()
      // QUIT waits for an answer: only when there is a connection to answer it.
      if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect())
      else subscriber.disconnect()
    },
  }
}
