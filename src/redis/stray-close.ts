// ioredis rejects the commands still queued on a connection when it closes; BullMQ sometimes leaves one of those
// promises without a handler while its parts close (taskforcesh/bullmq#3546, open upstream): "Connection is closed."
// from ioredis's close handler. It says nothing about this process's state, so neither the host (server.ts) nor the
// tests (vitest.config.ts) treat it as a fault; any other unhandled rejection still is one.

/** Whether an unhandled rejection is ioredis's rejection of a command a closing connection still held. */
export function isStrayRedisClose(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { message, stack } = error as { message?: unknown; stack?: unknown }
  return message === 'Connection is closed.' && typeof stack === 'string' && /ioredis[\\/]built[\\/]redis[\\/]event_handler\.js/.test(stack)
}
