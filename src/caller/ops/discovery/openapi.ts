// GET /openapi.json: the caller API's own OpenAPI 3.0.3 document, cut from the host document the routes generate.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { CALLER_PREFIX } from '../../../http/envelope.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'
import { LOBES } from '../../operation.js'
import { writtenBy } from '../../../json/serializer.js'
import type { JsonBytes } from '../../../json/bytes.js'
import { inTurns } from '../../../sched/turns.js'

type PathItem = Record<string, { summary?: string; [key: string]: unknown }>

const openapiOutput = z.object({
  openapi: z.literal('3.0.3'),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  servers: z.array(z.object({ url: z.string(), description: z.string() })),
  tags: z.array(z.object({ name: z.string(), description: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
  security: z.array(z.record(z.string(), z.array(z.string()))),
})

export const openapi = defineOperation({
  name: 'openapi',
  method: 'GET',
  path: '/openapi.json',
  lobe: 'discovery',
  caption: 'OpenAPI 3.0.3 document of the caller API',
  summary: `Every caller path with its method, request and response schemas (generated from the same zod schemas that validate requests), servers [${CALLER_PREFIX}], each summary the full path.`,
  input: noInput,
  output: openapiOutput,
  provenance: ['declared'],
  examples: [{}],
  // The host document is built once (fastify-swagger keeps it), so the caller's cut of it is too, and written once:
  // cloned (~6 ms) and serialised (~3 ms) on every call, 30 parallel GETs held the loop 250 ms, 64 in one /run 350-530.
  // Both are built in loop turns: in one go, the first call after a start held the loop 140-170 ms.
  handler: async (_input, ctx) => {
    const hostDoc = (await ctx.host.hostDocuments.object()) as HostDoc
    let written = CUTS.get(hostDoc)
    if (!written) {
      const paths = ctx.registry.operations.map((op) => op.path)
      CUTS.set(hostDoc, (written = callerDocument(hostDoc, paths).then((doc) => writtenBy(openapiOutput, doc))))
      // a failed cut is not kept: the next call tries again
      written.catch(() => CUTS.delete(hostDoc))
    }
    return written
  },
})

type HostDoc = { paths?: Record<string, PathItem>; components?: Record<string, unknown>; security?: Array<Record<string, string[]>> }
/** Per host document, its caller cut written as the route sends it (its answer's text, sent as is every time after). */
const CUTS = new WeakMap<HostDoc, Promise<JsonBytes>>()

/** The caller's cut of the host document: its /api/v1 operation paths, each summary the full path. */
async function callerDocument(hostDoc: HostDoc, operationPathList: readonly string[]) {
  const operationPaths = new Set(operationPathList)
  const paths: Record<string, PathItem> = {}
  const callerPaths = Object.entries(hostDoc.paths ?? {})
    .filter(([hostPath]) => hostPath === CALLER_PREFIX || hostPath.startsWith(CALLER_PREFIX + '/'))
    .map(([hostPath, item]) => [hostPath.slice(CALLER_PREFIX.length) || '/', item] as const)
    .filter(([path]) => operationPaths.has(path))
  // a path item cloned per turn
  for await (const [path, item] of inTurns(callerPaths)) {
    if (paths[path]) continue
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
    security: structuredClone(hostDoc.security ?? []),
  }
}
