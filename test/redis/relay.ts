// A TCP relay to Redis that a test can cut and restore: an outage without touching the shared server.
import { createServer, Socket, type Server } from 'node:net'
import { freePort } from '../process.js'

/** Listens on a free loopback port and pipes every connection to target; `url` is the relay's redis:// URL. */
export async function relayTo(target: URL) {
  const port = await freePort()
  const sockets = new Set<Socket>()
  let server: Server | null = null
  const open = () => new Promise<void>((resolve) => {
    server = createServer((client) => {
      const upstream = new Socket()
      upstream.connect(Number(target.port || 6379), target.hostname)
      for (const s of [client, upstream]) {
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
        s.on('error', () => s.destroy())
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const cut = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy()
    server?.close(() => resolve())
  })
  await open()
  return { url: `redis://127.0.0.1:${port}`, cut, restore: open }
}
