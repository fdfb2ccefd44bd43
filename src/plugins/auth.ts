// Decorates the instance with the one authenticator of the host: every surface checks credentials through app.auth.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createAuthenticator, type Authenticator } from '../access/auth.js'

declare module 'fastify' {
  interface FastifyInstance {
    auth: Authenticator
  }
}

export default fp(
  async function authPlugin(app: FastifyInstance) {
    app.decorate('auth', createAuthenticator(app.config, app.store.sql))
  },
  { name: 'ncm-auth', fastify: '5.x', dependencies: ['ncm-store'] },
)
