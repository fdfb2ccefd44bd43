// POST /run: refuse-first dispatch of one operation or a batch, through the same gate as the direct routes.
import { z } from 'zod'
import { defineOperation, type OperationContext } from '../../operation.js'
import { runOperation } from '../../gate.js'
import { Refusal, refusalSchema, type RefusalBody } from '../../../refusal.js'
import { findOperation } from '../../grammar.js'

export const MAX_BATCH = 64
/** Dispatchers cannot dispatch themselves: no recursion through /run or /cli. */
const NOT_DISPATCHABLE = new Set(['run', 'cli'])

const job = z.object({ op: z.string().min(1).max(100), input: z.unknown().optional() }).strict()

const itemResult = z.object({
  index: z.number().int(),
  op: z.string(),
  ok: z.boolean(),
  data: z.unknown(),
  refuse: refusalSchema.nullable(),
  ms: z.number(),
})

export const runOutput = z.object({
  mode: z.enum(['single', 'batch']),
  results: z.array(itemResult),
  completed: z.number().int(),
  refused: z.number().int(),
  stopped_early: z.boolean(),
})

/** Runs one job through the gate; a refusal becomes part of the result, a bug stays a bug. */
export async function dispatch(op: string, input: unknown, ctx: OperationContext, index = 0): Promise<z.infer<typeof itemResult>> {
  const start = performance.now()
  try {
    const target = findOperation(op, ctx.registry)
    if (NOT_DISPATCHABLE.has(target.name)) {
      throw new Refusal('invalid_input', `${target.name} cannot be dispatched through /run or /cli`)
    }
    const data = await runOperation(target, input ?? {}, ctx)
    return { index, op: target.name, ok: true, data, refuse: null, ms: elapsed(start) }
  } catch (err) {
    if (!(err instanceof Refusal)) throw err
    return { index, op, ok: false, data: null, refuse: err.forOp(op).toBody(), ms: elapsed(start) }
  }
}

const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

/** A single dispatch answers with the inner refusal itself, so its HTTP status is the inner one. */
export function rethrowSingle(result: z.infer<typeof itemResult>): void {
  if (result.refuse) {
    const body: RefusalBody = result.refuse
    throw new Refusal(body.code, body.reason, {
      op: body.op, issues: body.issues, hints: body.hints, retryAfterS: body.retry_after_s,
    })
  }
}

export const run = defineOperation({
  name: 'run',
  method: 'POST',
  path: '/run',
  lobe: 'orchestration',
  caption: 'Refuse-first dispatch of one operation or a batch',
  summary:
    `{op, input} or {batch: [{op, input}…], stop_on_refusal?}. The gate checks, in order: the op exists, it is not refused by nature, ` +
    `credential and scope, input schema, limits, admission — and only then runs it (heavy ones in the mill). A single job answers as the ` +
    `operation would (its refusal is the envelope's); a batch (at most ${MAX_BATCH} jobs) gives each job its own result or refusal. ` +
    'A batch with heavy operations needs scope run:heavy when ADMIN_TOKEN is set.',
  input: z.union([
    z.object({ op: z.string().min(1).max(100), input: z.unknown().optional() }).strict(),
    z.object({ batch: z.array(job).min(1), stop_on_refusal: z.boolean().default(false) }).strict(),
  ]),
  output: runOutput,
  provenance: ['computed', 'measured', 'stored'],
  bodyLimit: 'large',
  checkLimits: (input) => {
    if ('batch' in input && input.batch.length > MAX_BATCH) {
      throw new Refusal('over_limit', `a batch holds at most ${MAX_BATCH} jobs; this one has ${input.batch.length}`)
    }
  },
  examples: [
    { op: 'captions' },
    { batch: [{ op: 'surface' }, { op: 'chat', input: {} }, { op: 'lexicon' }] },
  ],
  handler: async (input, ctx) => {
    if ('op' in input) {
      const result = await dispatch(input.op, input.input, ctx)
      rethrowSingle(result)
      return { mode: 'single' as const, results: [result], completed: 1, refused: 0, stopped_early: false }
    }
    const heavy = input.batch.some((j) => ctx.registry.byName(j.op)?.heavy)
    if (heavy) ctx.auth.require(ctx.credential, 'run:heavy', 'run')
    const results: Array<z.infer<typeof itemResult>> = []
    let stopped = false
    if (input.stop_on_refusal) {
      for (const [index, j] of input.batch.entries()) {
        const result = await dispatch(j.op, j.input, ctx, index)
        results.push(result)
        if (!result.ok) {
          stopped = index < input.batch.length - 1
          break
        }
      }
    } else {
      // Independent jobs go out together; the mill queues the heavy ones.
      results.push(...(await Promise.all(input.batch.map((j, index) => dispatch(j.op, j.input, ctx, index)))))
    }
    const refused = results.filter((r) => !r.ok).length
    return { mode: 'batch' as const, results, completed: results.length - refused, refused, stopped_early: stopped }
  },
})
