// Bench fixture: the full app on a loopback port (port printed as JSON on stdout), stopped by SIGTERM.
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'

const config = loadConfig({ ...process.env, PORT: '0', DATABASE_PATH: process.env.DATABASE_PATH ?? ':memory:', LOG_LEVEL: 'silent' })
const app = await buildApp({ config })
await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(JSON.stringify({ port: (app.server.address() as { port: number }).port, pid: process.pid }) + '\n')
process.on('SIGTERM', async () => {
  await app.close()
  process.exit(0)
})
