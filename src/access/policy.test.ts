import { describe, expect, it } from 'vitest'
import { Refusal } from '../refusal.js'
import { ADMIN_PRINCIPAL, ACTIONS, anonymousPrincipal, createPolicy, grantPrincipal, INTERNAL_PRINCIPAL, type Action, type Principal } from './policy.js'
import { SCOPES } from './tokens.js'

const anon = anonymousPrincipal('10.0.0.1')
const grants = SCOPES.map((s) => grantPrincipal(`only-${s}`, [s], `g-${s}`))

function code(policy: ReturnType<typeof createPolicy>, p: Principal, action: Action, owner?: string): string {
  try {
    policy.authorize(p, action, owner === undefined ? undefined : { kind: 'job', id: 'j1', owner })
    return 'allow'
  } catch (err) {
    if (err instanceof Refusal) return err.code
    throw err
  }
}

describe('the policy with ADMIN_TOKEN set', () => {
  const policy = createPolicy({ open: false, heavy: 'scoped' })

  it('asks a scope of a grant, and 401 of an anonymous client', () => {
    expect(code(policy, anon, 'pin.write')).toBe('unauthorized')
    expect(code(policy, grants[0]!, 'pin.write')).toBe('allow')
    expect(code(policy, grants[1]!, 'pin.write')).toBe('forbidden')
    expect(code(policy, ADMIN_PRINCIPAL, 'pin.write')).toBe('allow')
  })

  it('gives heavy work to run:heavy alone (or to everyone with HEAVY_ACCESS=open)', () => {
    expect(code(policy, anon, 'compute.heavy')).toBe('unauthorized')
    expect(grants.map((g) => code(policy, g, 'compute.heavy'))).toEqual(['forbidden', 'allow', 'forbidden', 'forbidden'])
    expect(code(createPolicy({ open: false, heavy: 'open' }), anon, 'compute.heavy')).toBe('allow')
  })

  it('lets only the admin credential mint grants', () => {
    expect(code(policy, anon, 'grant.issue')).toBe('unauthorized')
    for (const g of grants) expect(code(policy, g, 'grant.issue')).toBe('forbidden')
    expect(code(policy, INTERNAL_PRINCIPAL, 'grant.issue')).toBe('forbidden')
    expect(code(policy, ADMIN_PRINCIPAL, 'grant.issue')).toBe('allow')
  })

  it('answers a stranger asking for an owned thing not_found; its owner and admins may read it', () => {
    const owner = anon.owner
    expect(code(policy, anon, 'job.read', owner)).toBe('allow')
    expect(code(policy, anonymousPrincipal('10.0.0.2'), 'job.read', owner)).toBe('not_found')
    expect(code(policy, grants[0]!, 'job.read', owner)).toBe('not_found')
    expect(code(policy, grants[2]!, 'job.read', owner)).toBe('allow') // admin:read reads all
    expect(code(policy, grants[2]!, 'job.cancel', owner)).toBe('not_found') // but cancels only its own
    expect(code(policy, ADMIN_PRINCIPAL, 'job.cancel', owner)).toBe('allow')
  })

  it('needs the resource for an owner rule', () => {
    expect(() => policy.authorize(anon, 'job.read')).toThrow(/needs the resource/)
  })
})

describe('the policy of an open host (no ADMIN_TOKEN)', () => {
  const policy = createPolicy({ open: true, heavy: 'scoped' })

  it('grants every scope and heavy work to anyone, but nobody is admin', () => {
    for (const action of ACTIONS) {
      const expected = action === 'grant.issue' ? 'forbidden' : action.startsWith('job.') && action !== 'job.list' ? undefined : 'allow'
      if (expected) expect(code(policy, anon, action), action).toBe(expected)
    }
  })

  it('keeps owned things to their owners unless admin:read (open: everyone) reads them', () => {
    const stranger = anonymousPrincipal('10.0.0.2')
    expect(code(policy, stranger, 'job.read', anon.owner)).toBe('allow')
    expect(code(policy, stranger, 'job.cancel', anon.owner)).toBe('not_found')
  })
})
