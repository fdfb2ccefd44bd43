// Which stored runs a call's principal may see. A run by id is asked of the access policy (src/access/policy.ts:
// run.read, run.delete) with its owners, on every door that reads it (HTTP, MCP tools, the CLI through HTTP); a stranger's
// run is answered exactly as an unknown id. Lists show the runs run.read lets the principal read.
import type { Policy, Principal } from '../access/policy.js'
import { Refusal } from '../http/refusal.js'
import type { TradingRepository } from './repository.js'
import type { RunRow } from './rows.js'

declare const readable: unique symbol
/** A stored run its caller may read: only runFor makes one, and every reader of a run and its results takes one. */
export type ReadableRun = RunRow & { readonly [readable]: true }

/** What a door knows of its caller (a TradingCall). */
export interface RunCaller {
  host: { policy: Policy }
  principal: Principal
  service: { repo: TradingRepository }
}

export const unknownRun = (id: number): Refusal =>
  new Refusal('not_found', `no run ${id}; list runs with GET /api/v11/runs`, { hints: { list: '/api/v11/runs' } })

/** The run `id` if the caller may take `action` on it (an owner, or the rule's `or`); else not_found, as for no run. */
export async function runFor(call: RunCaller, id: number, action: 'run.read' | 'run.delete' = 'run.read'): Promise<ReadableRun> {
  const found = await call.service.repo.runWithOwner(id, call.principal.owner)
  if (!found) throw unknownRun(id)
  const owners = found.owned ? [call.principal.owner] : []
  if (!call.host.policy.allows(call.principal, action, { kind: 'run', id: String(id), owners })) throw unknownRun(id)
  return found.run as ReadableRun
}

/** Whose runs a list shows the caller: its own owner key, or null for every run (admin:read, or an open host). */
export const listedRunOwner = (call: Pick<RunCaller, 'host' | 'principal'>): string | null =>
  call.host.policy.listedOwner(call.principal, 'run.read')
