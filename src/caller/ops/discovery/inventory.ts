// GET /inventory: counts of what this host holds — operations, routes per surface, presets, kernels, stored records.
import { grantRepository } from '../../../access/grants.js'
import { introspect } from '../../../store/introspect.js'
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { MODEL_PRESETS } from '../../../engines/capacity/models.js'
import { RACE_KERNELS } from '../../../engines/race/index.js'

export const inventory = defineOperation({
  name: 'inventory',
  method: 'GET',
  path: '/inventory',
  lobe: 'discovery',
  caption: 'Counts: operations, routes per surface, presets, kernels, stored pins, grants, datasets',
  summary: 'Operations from the registry, routes per surface from the route table, model presets and WASM kernels from the engines, pins, grants and datasets counted in SQLite (null when that table does not exist).',
  input: noInput,
  output: z.object({
    operations: z.number().int(),
    routes: z.record(z.string(), z.number().int()),
    model_presets: z.number().int(),
    wasm_kernels: z.number().int(),
    stored: z.object({
      pins: z.number().int().nullable(),
      grants: z.number().int().nullable(),
      active_grants: z.number().int().nullable(),
      datasets: z.number().int().nullable(),
    }),
  }),
  provenance: ['declared', 'stored', 'measured'],
  examples: [{}],
  handler: async (_input, ctx) => {
    const routes: Record<string, number> = { caller: 0, trading: 0, admin: 0, docs: 0 }
    const seen = new Set<string>()
    for (const r of ctx.host.routeTable) {
      const key = `${r.method} ${r.url}`
      if (seen.has(key)) continue
      seen.add(key)
      routes[r.surface] = (routes[r.surface] ?? 0) + 1
    }
    const db = introspect(ctx.store.sql)
    const [grants, pins, datasets] = await Promise.all([
      grantRepository(ctx.store.sql).counts(ctx.clock.now()), db.rowCount('pins'), db.rowCount('datasets'),
    ])
    return {
      operations: ctx.registry.operations.length,
      routes,
      model_presets: MODEL_PRESETS.length,
      wasm_kernels: RACE_KERNELS.length,
      stored: {
        pins,
        grants: grants.total,
        active_grants: grants.active,
        datasets,
      },
    }
  },
})
