// POST /jsonsat's input: read by its route on the loop and, from a large body's bytes, by the mill (inputs/stored.ts).
import { z } from 'zod'
import { formulaInput } from './formula.js'
import { PROOF_LIMITS, searchFields, timeoutMs } from './search.js'

export const jsonsatInput = z
  .object({
    formula: formulaInput,
    timeout_ms: timeoutMs,
    want_model: z.boolean().default(true).describe('Return the model and assignment of a SAT answer (default true)'),
    ...searchFields,
    want_cnf: z.boolean().default(false).describe('Store the Tseitin CNF that was solved as a pin and name it in cnf.url (needs scope pin:write; ' +
      `a proof names its CNF always: the proof is of that CNF). CNFs over ${PROOF_LIMITS.maxBytes} bytes of DIMACS are not stored (a warning says so)`),
  })
  .strict()

export type JsonsatInput = z.output<typeof jsonsatInput>

/** A proof or the CNF is pinned: the call is a pin write too. */
export function jsonsatInputAction(raw: unknown): 'pin.write' | null {
  if (typeof raw !== 'object' || raw === null) return null
  return ('proof' in raw && raw.proof !== 'none') || ('want_cnf' in raw && raw.want_cnf === true) ? 'pin.write' : null
}
