// GET /labs: experimental operations and flags, each with what is missing before it is stable.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { fullPath } from '../../projections.js'

export const labs = defineOperation({
  name: 'labs',
  method: 'GET',
  path: '/labs',
  lobe: 'discovery',
  caption: 'Experimental operations and what they still miss',
  summary: 'Operations marked labs in the registry, with what is missing before they are stable. An empty list means every operation is stable or refused by nature.',
  input: noInput,
  output: z.object({
    operations: z.array(z.object({ op: z.string(), path: z.string(), missing: z.string() })),
    count: z.number().int(),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => {
    const rows = ctx.registry.operations
      .filter((op) => op.stability === 'labs')
      .map((op) => ({ op: op.name, path: fullPath(op), missing: op.missing ?? 'not stated' }))
    return { operations: rows, count: rows.length }
  },
})
