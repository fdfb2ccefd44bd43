// Decorates the instance with the mill (worker pool) and closes it with the app.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Mill } from '../mill/pool.js'

declare module 'fastify' {
  interface FastifyInstance {
    mill: Mill
  }
}

export default fp(
  async function millPlugin(app: FastifyInstance, opts: { mill: Mill }) {
    app.decorate('mill', opts.mill)
    app.addHook('onClose', async () => opts.mill.close())
  },
  { name: 'ncm-mill', fastify: '5.x' },
)
