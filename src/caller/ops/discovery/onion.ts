// GET /onion: the layers a request passes, with live counts of passes and refusals at each.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { ONION_LAYERS } from '../../counters.js'

const LAYER_DOES: Record<(typeof ONION_LAYERS)[number], string> = {
  transport: 'HTTP parsing, request id, security headers',
  limits: 'body size limits (1 MiB, 16 MiB for bulk operations)',
  rate_limit: 'requests per minute per client IP',
  validation: "the operation's input schema",
  refusal_gate: 'refused by nature, credential and scope, declared limits, admission (occupancy)',
  mill_handler: 'the handler, in the worker pool for heavy operations, within its time budget',
  store: 'SQLite reads and writes (counted for operations whose numbers are stored)',
}

export const onion = defineOperation({
  name: 'onion',
  method: 'GET',
  path: '/onion',
  lobe: 'discovery',
  caption: 'The layers a request passes, with live counters',
  summary: 'Transport → limits → rate limit → validation → refusal gate → mill/handler → store; each layer with the number of requests that passed it and that it refused since start.',
  input: noInput,
  output: z.object({
    requests: z.number().int(),
    layers: z.array(z.object({ layer: z.enum(ONION_LAYERS), does: z.string(), passed: z.number().int(), refused: z.number().int() })),
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: (_input, ctx) => ({
    requests: ctx.counters.requests,
    layers: ctx.counters.onion().map((l) => ({ ...l, does: LAYER_DOES[l.layer] })),
  }),
})
