// bench:memory's and bench:http's reference process: Fastify 5 with no plugins and one route, plain JavaScript.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/health', async () => ({ status: 'pass' }))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
