// GET /ops, /lobes, /captions, /surface: plain projections of the registry.
import { z } from 'zod'
import { LOBES, defineOperation, noInput } from '../../operation.js'
import { byLobe, fullPath, inputJsonSchema } from '../../projections.js'
import { CALLER_PREFIX } from '../../../http/envelope.js'
import { SURFACE } from '../../../http/envelope.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'

const provenance = z.array(z.enum(['computed', 'measured', 'stored', 'declared']))

export const ops = defineOperation({
  name: 'ops',
  method: 'GET',
  path: '/ops',
  lobe: 'discovery',
  caption: 'Each operation: name, method, path, lobe, caption, provenance, heavy, input schema',
  summary: 'The registry itself, as data; `?lobe=` keeps one lobe\'s operations.',
  input: z.object({ lobe: z.enum(LOBES).optional().describe('only the operations of this lobe') }).strict(),
  output: z.object({
    count: z.number().int(),
    operations: z.array(z.object({
      name: z.string(), method: z.string(), path: z.string(), lobe: z.enum(LOBES), caption: z.string(),
      provenance, heavy: z.boolean(), stability: z.enum(['stable', 'labs', 'refused']),
      input_schema: z.record(z.string(), z.unknown()),
    })),
  }),
  provenance: ['declared'],
  examples: [{}, { lobe: 'logic' }],
  handler: (input, ctx) => {
    const selected = ctx.registry.operations.filter((op) => input.lobe === undefined || op.lobe === input.lobe)
    return {
      count: selected.length,
      operations: selected.map((op) => ({
      name: op.name, method: op.method, path: fullPath(op), lobe: op.lobe, caption: op.caption,
        provenance: op.provenance, heavy: op.heavy, stability: op.stability, input_schema: inputJsonSchema(op),
      })),
    }
  },
})

export const lobes = defineOperation({
  name: 'lobes',
  method: 'GET',
  path: '/lobes',
  lobe: 'discovery',
  caption: 'Operations grouped by lobe',
  summary: 'discovery, logic, capacity, text, access, orchestration, runtime — each with its operations.',
  input: noInput,
  output: z.object({
    lobes: z.array(z.object({ lobe: z.enum(LOBES), operations: z.array(z.object({ name: z.string(), method: z.string(), path: z.string(), caption: z.string() })) })),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => {
    const grouped = byLobe(ctx.registry.operations)
    return {
      lobes: LOBES.map((lobe) => ({
        lobe,
        operations: grouped[lobe].map((op) => ({ name: op.name, method: op.method, path: fullPath(op), caption: op.caption })),
      })),
    }
  },
})

export const captions = defineOperation({
  name: 'captions',
  method: 'GET',
  path: '/captions',
  lobe: 'discovery',
  caption: 'One caption per operation: { op: caption }',
  summary: 'The one-line caption of every operation, keyed by name.',
  input: noInput,
  output: z.record(z.string(), z.string()),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => Object.fromEntries(ctx.registry.operations.map((op) => [op.name, op.caption])),
})

export const surface = defineOperation({
  name: 'surface',
  method: 'GET',
  path: '/surface',
  lobe: 'discovery',
  caption: 'This surface: name, prefix, counts by method and lobe, versions',
  summary: 'The caller surface at a glance.',
  input: noInput,
  output: z.object({
    surface: z.string(),
    prefix: z.string(),
    operations: z.number().int(),
    by_method: z.record(z.string(), z.number().int()),
    by_lobe: z.record(z.string(), z.number().int()),
    versions: z.object({ ncm: z.string(), hub: z.string() }),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => {
    const byMethod: Record<string, number> = {}
    for (const op of ctx.registry.operations) byMethod[op.method] = (byMethod[op.method] ?? 0) + 1
    const grouped = byLobe(ctx.registry.operations)
    return {
      surface: SURFACE,
      prefix: CALLER_PREFIX,
      operations: ctx.registry.operations.length,
      by_method: byMethod,
      by_lobe: Object.fromEntries(LOBES.map((lobe) => [lobe, grouped[lobe].length])),
      versions: { ncm: NCM_VERSION, hub: HUB_VERSION },
    }
  },
})
