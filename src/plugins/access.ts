// Every request's principal (req.principal) and every route's action: a route that names no action stops the host at
// start; every route's door is asked here, before its body is read (for an owned thing, the scope its owner needs).
// Operations (the action may depend on the input) are authorized by the gate, owned resources (jobs, runs) by the
// route that loads them.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Credential } from '../access/auth.js'
import { listedAction } from '../access/doors.js'
import { addressedByOwnName } from '../access/host-names.js'
import { ADMIN_PRINCIPAL, anonymousPrincipal, createPolicy, grantPrincipal, INTERNAL_PRINCIPAL, type Action, type Policy, type Principal } from '../access/policy.js'
import { isInternal } from '../access/internal.js'
import { clientKey } from './local-limiter.js'
import { Refusal } from '../http/refusal.js'

/** A route's door: an action of the policy. */
export type RouteAccess = Action

declare module 'fastify' {
  interface FastifyInstance {
    policy: Policy
    /** Every route's door by `METHOD url` as registered (HEAD and OPTIONS included): the door table's source. */
    routeAccess: ReadonlyMap<string, RouteAccess>
  }
  interface FastifyRequest {
    credential: Credential | null
    principal: Principal
  }
  interface FastifyContextConfig {
    /** The action of the policy this route is (src/access/policy.ts); set from doors.ts when the route names none. */
    access?: RouteAccess
  }
}

/** The principal of a credential (null: anonymous, known by its client key as the rate limiter counts it). */
export function principalOf(credential: Credential | null, ip: string): Principal {
  if (!credential) return anonymousPrincipal(clientKey(ip))
  if (credential.kind === 'admin') return ADMIN_PRINCIPAL
  return grantPrincipal(credential.subject, credential.scopes, credential.grantId ?? credential.subject)
}

export default fp(
  async function accessPlugin(app: FastifyInstance) {
    const { auth, clock } = app
    app.decorate('policy', createPolicy({ open: auth.open, heavy: app.config.heavyAccess }))
    app.decorateRequest('credential', null)
    app.decorateRequest<Principal | null>('principal', null)
    const routeAccess = new Map<string, RouteAccess>()
    app.decorate('routeAccess', routeAccess)

    app.addHook('onRoute', (route) => {
      const config = (route.config ?? {}) as { access?: RouteAccess; operation?: string }
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      if (config.access) {
        for (const m of methods) routeAccess.set(`${m} ${route.url}`, config.access)
        return
      }
      // A HEAD route (Fastify adds one per GET) is its GET's door; a CORS preflight (OPTIONS) carries no credential
      // and reaches no data.
      const actions = new Set(methods.map((m) => (m === 'OPTIONS' ? 'host.read' : listedAction(m === 'HEAD' ? 'GET' : m, route.url))))
      const [access, more] = [...actions]
      if (!access || more !== undefined) {
        throw new Error(`route ${methods.join(',')} ${route.url} names no action of the access policy: set config.access, or list it in src/access/doors.ts`)
      }
      route.config = { ...config, access }
      for (const m of methods) routeAccess.set(`${m} ${route.url}`, access)
    })

    app.addHook('onRequest', (req, _reply, done) => {
      const authorize = () => {
        const { access, operation } = req.routeOptions.config
        if (access) app.policy.authorizeDoor(req.principal, access, operation)
      }
      if (isInternal(req)) {
        req.principal = INTERNAL_PRINCIPAL
        return done()
      }
      // An open host grants every scope to every request: only to requests addressed to it by a name no other party
      // can point at it (a DNS-rebinding page would get all of them).
      if (auth.open && !addressedByOwnName(req.headers.host, app.config)) {
        req.principal = principalOf(null, req.ip)
        return done(foreignName())
      }
      const authorization = req.headers.authorization
      if (!authorization) {
        req.principal = principalOf(null, req.ip)
        try {
          authorize()
          return done()
        } catch (err) {
          return done(err as Error)
        }
      }
      auth.identify(authorization, clock.now()).then((credential) => {
        req.credential = credential
        req.principal = principalOf(credential, req.ip)
        authorize()
        done()
      }).catch(done)
    })
  },
  { name: 'ncm-access', fastify: '5.x', dependencies: ['ncm-auth'] },
)

/** The principal of a request (set by the onRequest hook; a request refused before it is anonymous). */
export const principalOfRequest = (req: FastifyRequest): Principal => req.principal ?? principalOf(null, req.ip)

function foreignName(): Refusal {
  // The Host itself is not echoed: it is whatever the client wrote.
  return new Refusal('forbidden', 'this host has no ADMIN_TOKEN, so it grants every scope to every request, and answers only requests ' +
    'addressed to it by an address, localhost, HOST or PUBLIC_URL; the Host of this request names something else (as a ' +
    'DNS-rebinding page would): set PUBLIC_URL to the name clients use, or set ADMIN_TOKEN')
}
