// GET /map: every route of the host, grouped by surface, read from Fastify's route table.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'

const route = z.object({ method: z.string(), url: z.string() })

export const map = defineOperation({
  name: 'map',
  method: 'GET',
  path: '/map',
  lobe: 'discovery',
  caption: 'Every route of the host, grouped by surface',
  summary: 'Read from the route table Fastify builds as plugins register (an onRoute hook), so it cannot drift from what is served.',
  input: noInput,
  output: z.object({
    total: z.number().int(),
    surfaces: z.object({ caller: z.array(route), trading: z.array(route), admin: z.array(route), docs: z.array(route) }),
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: (_input, ctx) => {
    const surfaces = { caller: [], trading: [], admin: [], docs: [] } as Record<string, Array<{ method: string; url: string }>>
    const seen = new Set<string>()
    for (const r of ctx.host.routeTable) {
      const key = `${r.method} ${r.url}`
      if (seen.has(key)) continue
      seen.add(key)
      surfaces[r.surface]!.push({ method: r.method, url: r.url })
    }
    for (const list of Object.values(surfaces)) list.sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
    return { total: seen.size, surfaces: surfaces as { caller: []; trading: []; admin: []; docs: [] } }
  },
})
