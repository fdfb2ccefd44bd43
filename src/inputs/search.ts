// What every SAT operation's input shares (/sat, /jsonsat): its time budget, its search budgets and the proof to write,
// below the surfaces (see cnf.ts) so the mill reads a large body's input with the same schema as its route.
import { z } from 'zod'
import type { SearchOptions } from '../engines/sat/answer.js'

/** A request's time budget when it names none, and the most a synchronous call may name (a job may name JOB_MAX_MS). */
export const DEFAULT_TIMEOUT_MS = 10_000
export const MAX_TIMEOUT_MS = 60_000

export const timeoutMs = z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time budget in ms (default 10 000, max 60 000)')

/** A proof is kept to this size; past it the proof is dropped (the UNSAT answer then says it is unchecked). */
export const PROOF_LIMITS = { maxBytes: 32 * 1024 * 1024 }
const MAX_BUDGET = Number.MAX_SAFE_INTEGER

/** The request's search settings every SAT operation takes: budgets beside timeout_ms, and the proof to write. */
export const searchFields = {
  max_conflicts: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "conflicts") once this many conflicts were met; the answer\'s stats.conflicts is then exactly this'),
  max_decisions: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "decisions") once this many branching decisions were made (assumptions do not count)'),
  max_propagations: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "propagations") once this many literals were propagated'),
  proof: z.enum(['none', 'drat', 'lrat']).default('none').describe(
    'Write a proof of an UNSAT answer, check it with the service\'s independent checker, and store it as a pin (needs scope ' +
      `pin:write): "drat" (lemmas and deletions) or "lrat" (clause ids and hints). Default "none". Proofs over ${PROOF_LIMITS.maxBytes} bytes are dropped`,
  ),
}

/** The engine's search options from an input's fields (absent fields stay absent). */
export function searchOptions(i: {
  max_conflicts?: number | undefined
  max_decisions?: number | undefined
  max_propagations?: number | undefined
  proof: 'none' | 'drat' | 'lrat'
  assumptions?: number[] | undefined
  models?: number | undefined
}): SearchOptions {
  return {
    ...(i.max_conflicts !== undefined ? { maxConflicts: i.max_conflicts } : {}),
    ...(i.max_decisions !== undefined ? { maxDecisions: i.max_decisions } : {}),
    ...(i.max_propagations !== undefined ? { maxPropagations: i.max_propagations } : {}),
    ...(i.assumptions !== undefined ? { assumptions: i.assumptions } : {}),
    ...(i.models !== undefined ? { models: i.models } : {}),
    ...(i.proof !== 'none' ? { proof: { format: i.proof, maxBytes: PROOF_LIMITS.maxBytes } } : {}),
  }
}
