// GET /detect: the runtime as measured now — WebAssembly (validated real modules), threads, CPU, memory, versions.
import { availableParallelism, cpus, freemem, totalmem } from 'node:os'
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { detectWasm } from '../../../engines/race/index.js'

export function runtimeFacts() {
  const cpuList = cpus()
  return {
    webassembly: detectWasm(),
    cpu: { count: cpuList.length, available_parallelism: availableParallelism(), model: cpuList[0]?.model?.trim() ?? null },
    memory: { total_bytes: totalmem(), free_bytes: freemem(), process_rss_bytes: process.memoryUsage().rss },
    versions: { node: process.versions.node, v8: process.versions.v8, uv: process.versions.uv, sqlite: null as string | null },
    platform: process.platform,
    arch: process.arch,
  }
}

export const detect = defineOperation({
  name: 'detect',
  method: 'GET',
  path: '/detect',
  lobe: 'discovery',
  caption: 'The runtime measured now: WASM and SIMD, threads, CPU, memory, versions',
  summary: 'WebAssembly and WASM SIMD support are found by validating real modules (an empty module and one using i32x4.add); worker threads from the live mill; CPU, memory, Node/V8/SQLite versions, platform and architecture read from the runtime.',
  input: noInput,
  output: z.object({
    webassembly: z.object({ webassembly: z.boolean(), simd: z.boolean() }),
    worker_threads: z.object({ available: z.boolean(), mill_threads: z.number().int(), live_workers: z.number().int() }),
    cpu: z.object({ count: z.number().int(), available_parallelism: z.number().int(), model: z.string().nullable() }),
    memory: z.object({ total_bytes: z.number(), free_bytes: z.number(), process_rss_bytes: z.number() }),
    versions: z.object({ node: z.string(), v8: z.string(), uv: z.string(), sqlite: z.string().nullable() }),
    platform: z.string(),
    arch: z.string(),
    measured_at: z.string(),
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: async (_input, ctx) => {
    const facts = runtimeFacts()
    return {
      ...facts,
      versions: { ...facts.versions, sqlite: ctx.store.backend === 'sqlite' ? await ctx.store.version() : null },
      worker_threads: { available: true, mill_threads: ctx.mill.stats().threads, live_workers: ctx.mill.agents().length },
      measured_at: new Date(ctx.clock.now()).toISOString(),
    }
  },
})
