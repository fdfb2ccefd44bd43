// GET /capabilities: what this host can and cannot do, each with the reason — detected, not assumed.
import { createRequire } from 'node:module'
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { detectWasm } from '../../../engines/race/index.js'
import { introspect } from '../../../store/introspect.js'
import type { Store } from '../../../store/index.js'

const resolvable = (pkg: string): boolean => {
  try {
    createRequire(import.meta.url).resolve(pkg)
    return true
  } catch {
    return false
  }
}

export const capabilities = defineOperation({
  name: 'capabilities',
  method: 'GET',
  path: '/capabilities',
  lobe: 'discovery',
  caption: 'What the host can and cannot do, with reasons',
  summary: 'Each capability with available true/false and the reason: token completion and hardware ownership are never available here; the SAT solver, WebAssembly, SIMD, the BPE tokenizer, the worker pool and SQLite are detected at the time of the request.',
  input: noInput,
  output: z.object({
    capabilities: z.array(z.object({ name: z.string(), available: z.boolean(), reason: z.string() })),
  }),
  provenance: ['measured', 'declared'],
  examples: [{}],
  handler: async (_input, ctx) => {
    const wasm = detectWasm()
    const has = (op: string) => ctx.registry.byName(op) !== undefined
    const workers = ctx.mill.agents().length
    const store = await storeCapability(ctx.store)
    const tokenizer = has('budget') && resolvable('js-tiktoken')
    return {
      capabilities: [
        { name: 'token_completion', available: false, reason: 'no language model runs here; /chat refuses with token_completion_unavailable' },
        { name: 'hardware_ownership', available: false, reason: 'service_owns_hardware is false: device figures are declared by the caller' },
        { name: 'gpu', available: false, reason: 'nothing runs on a GPU; /occupancy applies NVIDIA\'s published rules to the inputs' },
        { name: 'live_trading', available: false, reason: 'the trading platform is paper only: no order reaches a market' },
        { name: 'sat_solver', available: has('sat'), reason: has('sat') ? 'CDCL solver in TypeScript, models verified before they are returned (/sat, /jsonsat)' : 'the logic lobe is not registered' },
        { name: 'webassembly', available: wasm.webassembly, reason: wasm.webassembly ? 'a minimal module validated' : 'WebAssembly.validate rejected a minimal module' },
        { name: 'wasm_simd', available: wasm.simd, reason: wasm.simd ? 'a module using i32x4.add validated' : 'a module using v128 instructions did not validate' },
        { name: 'bpe_tokenizer', available: tokenizer, reason: tokenizer ? 'js-tiktoken with bundled cl100k_base and o200k_base ranks (/budget)' : 'js-tiktoken or /budget is not available' },
        { name: 'worker_pool', available: workers > 0, reason: `${workers} of ${ctx.mill.stats().threads} mill workers live` },
        store,
      ],
    }
  },
})

/** The database the store runs on, as found now: SQLite with its journal mode, or PostgreSQL with its version. */
async function storeCapability(store: Store) {
  if (store.backend === 'postgres') {
    return { name: 'postgresql', available: true, reason: `node-postgres pool, PostgreSQL ${await store.version()} (DATABASE_URL)` }
  }
  const journal = String(await introspect(store.sql).pragma('journal_mode'))
  return { name: 'sqlite', available: journal === 'wal' || journal === 'memory', reason: `better-sqlite3, journal_mode ${journal}` }
}
