// The process: read the configuration, build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { isStrayRedisClose } from './redis/stray-close.js'

async function main() {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ncm-hub: ${err.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw err
  }
  const started = performance.now()
  // The self-test host is built by the start report, 2 s after listening (a short stall then, not before the first answer).
  const app = await buildApp({ config })
  const drain = trackConnections(app.server)
  // An unhandled rejection closes the host as an uncaught exception does (thrown again from here, close-with-grace
  // takes it), except ioredis's rejection of what a closing connection still held: logged, as it says nothing is wrong.
  process.on('unhandledRejection', (reason) => {
    if (!isStrayRedisClose(reason)) throw reason
    app.log.warn({ err: reason }, 'a Redis command queued on a closing connection was rejected with no handler (bullmq#3546)')
  })
  closeWithGrace({ delay: config.shutdownGraceMs, skip: ['unhandledRejection'] }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: draining in-flight requests')
    const stopDraining = drain()
    try {
      await app.close()
    } finally {
      stopDraining()
    }
  })
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (err) {
    const reason = listenRefusal(err as NodeJS.ErrnoException, config.host, config.port)
    if (!reason) throw err
    process.stderr.write(`ncm-hub: ${reason}\n`)
    await app.close()
    process.exit(1)
  }
  app.log.info({ ms: Math.round(performance.now() - started) }, `NCM Hub ready; docs at /docs`)
}

/** One line for the listen errors a user causes (the port taken or privileged), naming the variables that fix them. */
function listenRefusal(err: NodeJS.ErrnoException, host: string, port: number): string | null {
  if (err.code === 'EADDRINUSE') {
    return `port ${port} on ${host} is already in use (PORT=${port}): stop the other server, or start with another PORT, e.g. PORT=8001 npm start`
  }
  if (err.code === 'EACCES') return `no permission to listen on port ${port} (PORT=${port}): ports below 1024 need privileges; choose PORT=8000 or above`
  if (err.code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine (HOST=${host}): use 127.0.0.1, 0.0.0.0 or one of its addresses`
  return null
}

/** How often, while draining, connections that have just finished their last answer are closed. */
const IDLE_SWEEP_MS = 50

/**
 * Keeps the open sockets (one Set entry per connection, not per request) and returns the drain step for shutdown: answers
 * still in flight say `Connection: close`, idle keep-alive connections close now, and connections that become idle later
 * close within IDLE_SWEEP_MS. Fastify's close reaps only the connections idle at the signal: one whose request was in
 * flight stayed open until its keep-alive timeout, so the process waited out the whole grace and exited 1.
 */
function trackConnections(server: Server): () => () => void {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  return () => {
    for (const socket of sockets) {
      // The answer being written on this connection (Node's own field; stable since the http module's first days).
      const res = (socket as Socket & { _httpMessage?: { headersSent: boolean; setHeader(name: string, value: string): void } })._httpMessage
      if (res && !res.headersSent) res.setHeader('connection', 'close')
    }
    server.closeIdleConnections()
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS)
    sweep.unref()
    return () => clearInterval(sweep)
  }
}

main().catch((err) => {
  process.stderr.write(`ncm-hub failed to start: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
