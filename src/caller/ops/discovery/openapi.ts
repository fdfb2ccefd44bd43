// GET /openapi.json: the caller API's own OpenAPI 3.0.3 document, cut from the host document the routes generate.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { CALLER_PREFIX } from '../../index.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'
import { LOBES } from '../../operation.js'

type PathItem = Record<string, { summary?: string; [key: string]: unknown }>

export const openapi = defineOperation({
  name: 'openapi',
  method: 'GET',
  path: '/openapi.json',
  lobe: 'discovery',
  caption: 'OpenAPI 3.0.3 document of the caller API',
  summary: `Every caller path with its method, request and response schemas (generated from the same zod schemas that validate requests), servers [${CALLER_PREFIX}], each summary the full path.`,
  input: noInput,
  output: z.object({
    openapi: z.literal('3.0.3'),
    info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
    servers: z.array(z.object({ url: z.string(), description: z.string() })),
    tags: z.array(z.object({ name: z.string(), description: z.string() })),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => {
    const hostDoc = ctx.host.swagger() as { paths?: Record<string, PathItem>; components?: Record<string, unknown> }
    const operationPaths = new Set(ctx.registry.operations.map((op) => op.path))
    const paths: Record<string, PathItem> = {}
    for (const [hostPath, item] of Object.entries(hostDoc.paths ?? {})) {
      if (hostPath !== CALLER_PREFIX && !hostPath.startsWith(CALLER_PREFIX + '/')) continue
      const path = hostPath.slice(CALLER_PREFIX.length) || '/'
      if (!operationPaths.has(path) || paths[path]) continue
      const copy: PathItem = structuredClone(item)
      for (const method of Object.keys(copy)) copy[method]!.summary = CALLER_PREFIX + path
      paths[path] = copy
    }
    return {
      openapi: '3.0.3' as const,
      info: {
        title: 'NCM Hub caller API',
        version: `${NCM_VERSION}+hub-${HUB_VERSION}`,
        description:
          'The honest-compute caller API. Areas: discovery (what the API is and can do), logic (CDCL SAT, JSON formulas, CNF analysis), ' +
          'capacity (KV cache, fit, PEFT, adapters, token budgets, bin packing, CUDA occupancy, capacity cards), text (digests, diffs), ' +
          'access (grants, pins, contract upgrades), orchestration (refuse-first /run and /cli; /chat refuses) and runtime (WASM race). ' +
          'Every response is wrapped in the contract envelope.',
      },
      servers: [{ url: CALLER_PREFIX, description: 'this host' }],
      tags: LOBES.map((name) => ({ name, description: `${name} operations` })),
      paths,
      components: structuredClone(hostDoc.components ?? {}),
    }
  },
})
