// GET /features: the feature table, one row per operation, with its stability.
import { z } from 'zod'
import { LOBES, defineOperation, noInput } from '../../operation.js'

export const features = defineOperation({
  name: 'features',
  method: 'GET',
  path: '/features',
  lobe: 'discovery',
  caption: 'Feature table: feature, lobe, status, operations',
  summary: 'Each operation as a feature with its status: stable, labs (experimental, see /labs) or refused (by nature, e.g. chat).',
  input: noInput,
  output: z.object({
    features: z.array(z.object({
      feature: z.string(),
      lobe: z.enum(LOBES),
      status: z.enum(['stable', 'labs', 'refused']),
      operations: z.array(z.string()),
    })),
    counts: z.object({ stable: z.number().int(), labs: z.number().int(), refused: z.number().int() }),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => {
    const rows = ctx.registry.operations.map((op) => ({
      feature: op.caption,
      lobe: op.lobe,
      status: op.stability,
      operations: [op.name],
    }))
    const count = (s: string) => rows.filter((r) => r.status === s).length
    return { features: rows, counts: { stable: count('stable'), labs: count('labs'), refused: count('refused') } }
  },
})
