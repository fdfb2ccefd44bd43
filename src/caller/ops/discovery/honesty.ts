// GET /honesty: the four envelope flags with their meaning, each operation's provenance, refusals since start.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { REFUSAL_CODES } from '../../../http/refusal.js'

export const PROVENANCE_MEANING = {
  computed: 'a pure function of the input',
  measured: 'timed or read from the runtime at the time of the request',
  stored: 'read from the database',
  declared: 'a constant fact of the service or of a public specification, with its source named',
} as const

export const FLAG_MEANING = {
  service_owns_hardware: 'always false: hardware figures are declared by the caller or read from the runtime, never assumed',
  invented_metrics: 'always false: every number in data is computed, measured, stored or declared with a source; what cannot be obtained is null with a reason',
  sat_perp_hal: 'true: the SAT solver is pure TypeScript and runs the same in every environment (no hardware path)',
  occupancy: 'the admission mode measured live: live-bound, shedding (heavy operations refused) or draining (shutdown)',
} as const

export const honesty = defineOperation({
  name: 'honesty',
  method: 'GET',
  path: '/honesty',
  lobe: 'discovery',
  caption: 'The honesty flags, provenance per operation, refusals by code',
  summary: 'What the envelope flags mean and how each operation obtains its numbers (computed, measured, stored, declared), with the count of refusals by code since the host started.',
  input: noInput,
  output: z.object({
    flags: z.object({
      service_owns_hardware: z.object({ value: z.literal(false), meaning: z.string() }),
      invented_metrics: z.object({ value: z.literal(false), meaning: z.string() }),
      sat_perp_hal: z.object({ value: z.literal(true), meaning: z.string() }),
      occupancy: z.object({ value: z.string(), meaning: z.string() }),
    }),
    provenance_kinds: z.record(z.string(), z.string()),
    operations: z.array(z.object({
      op: z.string(),
      provenance: z.array(z.enum(['computed', 'measured', 'stored', 'declared'])),
      sources: z.array(z.string()),
    })),
    refusals_since_start: z.record(z.string(), z.number().int()),
    envelopes_without_flags: z.number().int(),
  }),
  provenance: ['declared', 'measured'],
  examples: [{}],
  handler: (_input, ctx) => ({
    flags: {
      service_owns_hardware: { value: false as const, meaning: FLAG_MEANING.service_owns_hardware },
      invented_metrics: { value: false as const, meaning: FLAG_MEANING.invented_metrics },
      sat_perp_hal: { value: true as const, meaning: FLAG_MEANING.sat_perp_hal },
      occupancy: { value: ctx.admission.state(), meaning: FLAG_MEANING.occupancy },
    },
    provenance_kinds: { ...PROVENANCE_MEANING },
    operations: ctx.registry.operations.map((op) => ({ op: op.name, provenance: op.provenance, sources: op.sources ?? [] })),
    refusals_since_start: Object.fromEntries(REFUSAL_CODES.map((code) => [code, ctx.counters.refusals[code] ?? 0])),
    envelopes_without_flags: ctx.counters.envelopesWithoutFlags,
  }),
})
