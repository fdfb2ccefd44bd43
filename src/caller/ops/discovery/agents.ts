// GET /agents: who executes work here — the main event loop and each mill worker, live.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'

const startedAt = new Date().toISOString()

export const agents = defineOperation({
  name: 'agents',
  method: 'GET',
  path: '/agents',
  lobe: 'discovery',
  caption: 'The main loop and each mill worker, with state and counts',
  summary: 'The roster of agents that execute work: the main event loop (requests) and every worker thread of the mill, read live from shared counters: state (idle/busy), tasks done, failures, since.',
  input: noInput,
  output: z.object({
    agents: z.array(z.object({
      id: z.string(),
      kind: z.enum(['event-loop', 'mill-worker']),
      thread_id: z.number().int(),
      state: z.enum(['idle', 'busy']),
      tasks_done: z.number().int(),
      failures: z.number().int(),
      since: z.string(),
      utilization: z.number().nullable(),
    })),
    mill: z.object({
      threads: z.number().int(), max_queue: z.number().int(), queue_size: z.number().int(),
      running: z.number().int(), completed: z.number().int(), utilization: z.number(),
      timeouts: z.number().int(), rejected_full: z.number().int(),
    }),
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: (_input, ctx) => {
    const failures = ctx.counters.refusals.internal ?? 0
    return {
      agents: [
        {
          id: 'main',
          kind: 'event-loop' as const,
          thread_id: 0,
          // The main loop is serving this very request.
          state: 'busy' as const,
          tasks_done: ctx.counters.completed,
          failures,
          since: startedAt,
          utilization: ctx.admission.eventLoopUtilization(),
        },
        ...ctx.mill.agents(),
      ],
      mill: ctx.mill.stats(),
    }
  },
})
