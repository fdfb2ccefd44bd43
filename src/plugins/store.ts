// Decorates the instance with the store and closes the database when the app closes.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Store } from '../store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
  }
}

export default fp(
  async function storePlugin(app: FastifyInstance, opts: { store: Store }) {
    app.decorate('store', opts.store)
    // Last: everything else that writes closes before the database does.
    app.addHook('onClose', async () => opts.store.close())
  },
  { name: 'ncm-store', fastify: '5.x' },
)
