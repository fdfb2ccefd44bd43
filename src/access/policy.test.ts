import { describe, expect, it } from 'vitest'
import { Refusal } from '../http/refusal.js'
import { ADMIN_PRINCIPAL, ACTIONS, anonymousPrincipal, createPolicy, grantPrincipal, INTERNAL_PRINCIPAL, POLICY, type Action, type Principal } from './policy.js'
import { SCOPES } from './tokens.js'

const anon = anonymousPrincipal('10.0.0.1')
const grants = SCOPES.map((s) => grantPrincipal(`only-${s}`, [s], `g-${s}`))

function code(policy: ReturnType<typeof createPolicy>, p: Principal, action: Action, ...owners: string[]): string {
  try {
    policy.authorize(p, action, owners.length === 0 ? undefined : { kind: action.split('.')[0]!, id: '1', owners })
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
    expect(() => policy.authorize(anon, 'run.read')).toThrow(/needs the resource/)
  })

  it('lets any of a run\'s owners read it, admin:read read every run, and a stranger hear of none', () => {
    const other = anonymousPrincipal('10.0.0.2')
    expect(code(policy, anon, 'run.read', other.owner, anon.owner)).toBe('allow')
    expect(code(policy, anon, 'run.read', other.owner)).toBe('not_found')
    expect(grants.map((g) => code(policy, g, 'run.read', other.owner))).toEqual(['not_found', 'not_found', 'allow', 'not_found'])
    expect(code(policy, ADMIN_PRINCIPAL, 'run.read', other.owner)).toBe('allow')
  })

  it('deletes a run for an owner holding trading:write, or for the admin credential', () => {
    const writer = grants[3]!
    expect(code(policy, writer, 'run.delete', writer.owner)).toBe('allow')
    expect(code(policy, writer, 'run.delete', anon.owner)).toBe('not_found')
    // An owner without the scope is refused as one (its own run, or anyone's: the scope is asked first).
    expect(code(policy, anon, 'run.delete', anon.owner)).toBe('unauthorized')
    expect(code(policy, grants[2]!, 'run.delete', grants[2]!.owner)).toBe('forbidden')
    expect(code(policy, grants[2]!, 'run.delete', anon.owner)).toBe('forbidden')
    expect(code(policy, ADMIN_PRINCIPAL, 'run.delete', anon.owner)).toBe('allow')
  })

  it('decides at the door what needs no resource: an owned thing\'s scope, and the whole of every other rule', () => {
    const door = (p: Principal, action: Action) => {
      try {
        policy.authorizeDoor(p, action)
        return 'allow'
      } catch (err) {
        return (err as Refusal).code
      }
    }
    expect(door(anon, 'run.read')).toBe('allow')
    expect(door(anon, 'job.read')).toBe('allow')
    expect(door(anon, 'run.delete')).toBe('unauthorized')
    expect(door(grants[3]!, 'run.delete')).toBe('allow')
    expect(door(anon, 'pin.write')).toBe('unauthorized')
    expect(door(anon, 'run.list')).toBe('allow')
  })

  it('lists a principal\'s own things unless the rule lets it read everyone\'s', () => {
    expect(policy.listedOwner(anon, 'run.read')).toBe(anon.owner)
    expect(grants.map((g) => policy.listedOwner(g, 'run.read'))).toEqual([grants[0]!.owner, grants[1]!.owner, null, grants[3]!.owner])
    expect(policy.listedOwner(ADMIN_PRINCIPAL, 'run.read')).toBeNull()
    expect(policy.listedOwner(anon, 'dataset.read')).toBeNull()
  })
})

describe('the policy of an open host (no ADMIN_TOKEN)', () => {
  const policy = createPolicy({ open: true, heavy: 'scoped' })

  it('grants every scope and heavy work to anyone, but nobody is admin', () => {
    for (const action of ACTIONS) {
      const expected = action === 'grant.issue' ? 'forbidden' : POLICY[action].need === 'owner' ? undefined : 'allow'
      if (expected) expect(code(policy, anon, action), action).toBe(expected)
    }
  })

  it('keeps owned things to their owners unless admin:read (open: everyone) reads them', () => {
    const stranger = anonymousPrincipal('10.0.0.2')
    expect(code(policy, stranger, 'job.read', anon.owner)).toBe('allow')
    expect(code(policy, stranger, 'job.cancel', anon.owner)).toBe('not_found')
    // Runs alike: every principal holds admin:read and trading:write, so it reads every run but deletes only its own.
    expect(code(policy, stranger, 'run.read', anon.owner)).toBe('allow')
    expect(code(policy, stranger, 'run.delete', anon.owner)).toBe('not_found')
    expect(code(policy, stranger, 'run.delete', stranger.owner)).toBe('allow')
    expect(policy.listedOwner(stranger, 'run.read')).toBeNull()
  })
})
