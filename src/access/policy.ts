// The one authorization function of the host: every door (HTTP route, /run and /cli item, MCP tool and resource, job
// read, cancel, events and result) names an action and asks `authorize(principal, action, resource)`. The table below
// is the whole policy; docs/security.md states it and test/access/doors.test.ts walks every door against it.
import { Refusal } from '../http/refusal.js'
import { SCOPES, type Scope } from './tokens.js'

/** Who is asking: the admin credential, a stored grant, an anonymous client, or the host's own in-process checks. */
export interface Principal {
  kind: 'admin' | 'grant' | 'anonymous' | 'internal'
  /**
   * Who owns what this principal stores (jobs, their inputs, answers and idempotency keys): `admin`, `grant:<subject>`
   * or `client:<key>`, where the key is the client address as the rate limiter counts it (clientKey of req.ip, behind
   * TRUST_PROXY the forwarded one).
   */
  owner: string
  /** For messages: the grant's subject, `admin`, or `anonymous client <key>`. */
  subject: string
  scopes: readonly Scope[]
  grantId?: string
}

/**
 * What a rule asks of the principal:
 * - `anyone`: no credential;
 * - `scope`: a credential carrying it (granted to every request while the host is open: no ADMIN_TOKEN);
 * - `admin`: the admin credential itself (nobody while the host has none);
 * - `heavy`: work in the mill — scope run:heavy, unless HEAVY_ACCESS=open (or the host is open);
 * - `owner`: an owner of the resource, else the `or` scope (an admin reading all); a stranger is told `not_found`. With
 *   `scope`, the owner must hold it too (asked at the door, before the resource is loaded).
 */
export type Rule =
  | { need: 'anyone' }
  | { need: 'scope'; scope: Scope }
  | { need: 'admin' }
  | { need: 'heavy' }
  | { need: 'owner'; or: Scope | 'admin'; scope?: Scope }

const anyone: Rule = { need: 'anyone' }
const scope = (s: Scope): Rule => ({ need: 'scope', scope: s })

/** The policy: every action a door can name, and what it needs. */
export const POLICY = {
  /** Discovery, documents, health, the trading platform's pages and read-backs. */
  'host.read': anyone,
  /** A light caller operation (computed from its input, no mill). */
  'compute.light': anyone,
  /** Work in the mill: heavy operations, trading research, and light operations whose input sends them there. */
  'compute.heavy': { need: 'heavy' },
  /** Refused by its nature (chat): the door is open, the operation refuses. */
  'compute.refused': anyone,
  'pin.read': anyone,
  'pin.write': scope('pin:write'),
  /** Listing pins (digests, labels) — reading one by digest stays public: pins are content-addressed. */
  'pin.list': scope('admin:read'),
  /** Minting and revoking grants: a grant can never mint another. */
  'grant.issue': { need: 'admin' },
  'dataset.read': anyone,
  'dataset.write': scope('trading:write'),
  /** A stored run and everything under it (trades, curve, report, Monte Carlo, replay, compare): its owners, or admin:read. */
  'run.read': { need: 'owner', or: 'admin:read' },
  /** Listing runs (the list, the command center's runs and equity card): anyone, shown the runs run.read lets it read. */
  'run.list': anyone,
  /** An owner gives its ownership up (the run goes with its last owner); the admin credential deletes the run. */
  'run.delete': { need: 'owner', or: 'admin', scope: 'trading:write' },
  /** The paper ledger read back. */
  'ledger.read': anyone,
  /** The full cycle writes the paper ledger (its search runs in the mill under the same grant). */
  'ledger.write': scope('trading:write'),
  /** Listing jobs of every principal. */
  'job.list': scope('admin:read'),
  /** A job's record, input, events and answer: its owner, or admin:read. */
  'job.read': { need: 'owner', or: 'admin:read' },
  /** Cancelling a job: its owner, or the admin credential. */
  'job.cancel': { need: 'owner', or: 'admin' },
  /** The admin JSON routes, /metrics, the /admin panel. */
  'admin.read': scope('admin:read'),
  /** The /admin page's shell (it asks for the token; its panel is admin.read). */
  'admin.page': anyone,
  /** The MCP endpoint itself: each message is authorized again as the tool or resource it names. */
  'mcp.connect': anyone,
} as const satisfies Record<string, Rule>

export type Action = keyof typeof POLICY
export const ACTIONS = Object.keys(POLICY) as Action[]

/** An owned thing a principal asks about (a job, a run): who owns it, and how a stranger hears of it. */
export interface OwnedResource {
  kind: string
  id: string
  /**
   * Its owners: a job has one; a run has every principal that stored it, so a run's loader names at least the asking
   * principal's owner key when it is one of them.
   */
  owners: readonly string[]
}

export interface PolicyOptions {
  /** No ADMIN_TOKEN: development mode, every scope granted to every request, nobody is admin. */
  open: boolean
  /** HEAVY_ACCESS: `scoped` (run:heavy needed) or `open` (heavy work for anyone). */
  heavy: 'scoped' | 'open'
}

export interface Policy {
  readonly options: PolicyOptions
  /** Throws the refusal (401, 403, or 404 for a stranger's owned resource) unless the principal may take the action. */
  authorize(principal: Principal, action: Action, resource?: OwnedResource, op?: string): void
  allows(principal: Principal, action: Action, resource?: OwnedResource): boolean
  /**
   * What a door decides before it loads the resource (every door asks this first): the whole rule, or for an owned
   * thing the scope its owner needs; the owner itself is asked where the resource is loaded (authorize).
   */
  authorizeDoor(principal: Principal, action: Action, op?: string): void
  /** Whose things a list under `action` shows this principal: its own owner key, or null for everyone's (the rule's `or`). */
  listedOwner(principal: Principal, action: Action): string | null
}

export const ANONYMOUS_OWNER_PREFIX = 'client:'

export function anonymousPrincipal(clientKey: string): Principal {
  return { kind: 'anonymous', owner: `${ANONYMOUS_OWNER_PREFIX}${clientKey}`, subject: `anonymous client ${clientKey}`, scopes: [] }
}

export const ADMIN_PRINCIPAL: Principal = Object.freeze({ kind: 'admin', owner: 'admin', subject: 'admin', scopes: SCOPES })

/** The host's own in-process requests (smoke checks, known-answer self-tests): admin reads and heavy work, no writes. */
export const INTERNAL_PRINCIPAL: Principal = Object.freeze({ kind: 'internal', owner: 'internal', subject: 'the host itself', scopes: ['admin:read', 'run:heavy'] as const })

/** A job's run: the host's own reads (its submission was authorized), storing what it makes as the job owner's. */
export function jobPrincipal(owner: string): Principal {
  return { ...INTERNAL_PRINCIPAL, owner, subject: `a job of ${owner}` }
}

export function grantPrincipal(subject: string, scopes: readonly Scope[], grantId: string): Principal {
  return { kind: 'grant', owner: `grant:${subject}`, subject, scopes, grantId }
}

export function createPolicy(options: PolicyOptions): Policy {
  const hasScope = (p: Principal, s: Scope) => options.open || p.scopes.includes(s)
  const isAdmin = (p: Principal) => p.kind === 'admin'
  /** Whether an owner rule lets the principal act on what it does not own. */
  const beyondOwn = (p: Principal, rule: Extract<Rule, { need: 'owner' }>) => (rule.or === 'admin' ? isAdmin(p) : hasScope(p, rule.or))

  /** Null when allowed, else the refusal. */
  function verdict(p: Principal, action: Action, resource: OwnedResource | undefined, op: string | undefined): Refusal | null {
    const rule: Rule = POLICY[action]
    const opt = op === undefined ? {} : { op }
    switch (rule.need) {
      case 'anyone':
        return null
      case 'scope':
        return hasScope(p, rule.scope) ? null : missingScope(p, rule.scope, action, opt)
      case 'heavy':
        return options.open || options.heavy === 'open' || p.scopes.includes('run:heavy')
          ? null
          : missingScope(p, 'run:heavy', action, opt, ' (heavy work: HEAVY_ACCESS=scoped)')
      case 'admin':
        if (isAdmin(p)) return null
        if (options.open) {
          return new Refusal('forbidden', `${op ?? action} answers only the admin credential, and this host has none: set ADMIN_TOKEN (at least 16 ` +
            'characters, e.g. `ADMIN_TOKEN=$(openssl rand -base64 32)`) in the environment, restart, and send "Authorization: Bearer <ADMIN_TOKEN>"', opt)
        }
        if (p.kind === 'anonymous') return new Refusal('unauthorized', `${op ?? action} answers only the admin credential: send "Authorization: Bearer <ADMIN_TOKEN>"`, opt)
        return new Refusal('forbidden', `the credential of ${p.subject} is a grant; only the admin credential may call ${op ?? action}`, opt)
      case 'owner': {
        if (!resource) throw new Error(`action ${action} needs the resource it is about`)
        const door = ownerScope(p, action, rule, opt)
        if (door) return door
        if (resource.owners.includes(p.owner)) return null
        if (beyondOwn(p, rule)) return null
        // A stranger learns nothing, not even that the id exists.
        return new Refusal('not_found', `no ${resource.kind} ${resource.id}`, opt)
      }
    }
  }

  /** The scope an owner rule asks of every principal, owner or not. */
  function ownerScope(p: Principal, action: Action, rule: Extract<Rule, { need: 'owner' }>, opt: { op?: string }): Refusal | null {
    return rule.scope && !hasScope(p, rule.scope) ? missingScope(p, rule.scope, action, opt) : null
  }

  return {
    options,
    authorize(principal, action, resource, op) {
      const refusal = verdict(principal, action, resource, op)
      if (refusal) throw refusal
    },
    allows: (principal, action, resource) => verdict(principal, action, resource, undefined) === null,
    authorizeDoor(principal, action, op) {
      const rule: Rule = POLICY[action]
      const refusal = rule.need === 'owner' ? ownerScope(principal, action, rule, op === undefined ? {} : { op }) : verdict(principal, action, undefined, op)
      if (refusal) throw refusal
    },
    listedOwner(principal, action) {
      const rule: Rule = POLICY[action]
      return rule.need === 'owner' && !beyondOwn(principal, rule) ? principal.owner : null
    },
  }
}

function missingScope(p: Principal, s: Scope, action: Action, opt: { op?: string }, why = ''): Refusal {
  const what = opt.op ?? `this (${action})`
  return p.kind === 'anonymous'
    ? new Refusal('unauthorized', `${what} needs a bearer credential with scope ${s}${why}`, opt)
    : new Refusal('forbidden', `the credential of ${p.subject} lacks scope ${s}, which ${what} needs${why}`, opt)
}
