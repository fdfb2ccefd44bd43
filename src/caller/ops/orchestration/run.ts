// POST /run: refuse-first dispatch of one operation or a batch, through the same gate as the direct routes.
import { z } from 'zod'
import { defineOperation, type OperationContext } from '../../operation.js'
import { inputBytes, runOperation } from '../../gate.js'
import { Refusal, REFUSAL_CODES, refusalSchema, type RefusalBody, type RefusalCode } from '../../../http/refusal.js'
import { findOperation } from '../../grammar.js'
import type { AnyOperation } from '../../operation.js'
import { isShortRun, type Mill } from '../../../mill/pool.js'
import { inTurns } from '../../../sched/turns.js'
import { JsonBytes } from '../../../json/bytes.js'
import { splicedAnswer, writtenBy } from '../../../json/serializer.js'
import { MAX_BATCH, runInput, type RunJob } from '../../../inputs/run.js'

/** Jobs of one batch that may enter the mill (heavy operations, and light ones whose input sends them there). */
export const MAX_BATCH_MILL_JOBS = 8
/** Dispatchers cannot dispatch themselves: no recursion through /run or /cli. */
const NOT_DISPATCHABLE = new Set(['run', 'cli'])

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

/** A job's result with its answer already written (through its operation's own schema, or by the mill). */
export interface ItemResult extends Omit<z.infer<typeof itemResult>, 'data'> {
  data: JsonBytes | null
}

/** A job's result as the bytes the batch's answer holds, written once it is answered. */
export const itemBytes = (result: ItemResult): JsonBytes =>
  splicedAnswer(itemResult, { ...result, data: null }, { data: result.data })

/**
 * The answer of /run or /cli (`schema`) around its results' bytes, spliced as they are, and any other member the mill
 * wrote (`written`): the loop writes only the small rest, never the batch whole, and never parses what the mill wrote.
 */
export function dispatchAnswer(schema: z.ZodType, results: readonly JsonBytes[], rest: Record<string, unknown>, written: Record<string, Uint8Array> = {}): JsonBytes {
  return splicedAnswer(schema, { ...rest, results: [] }, { ...written, results: JsonBytes.array(results) })
}

/** The canonical operation a job names, whatever the spelling ('/sat', '//sat', 'SAT'), or null when none does. */
function canonicalOf(op: string, ctx: OperationContext): AnyOperation | null {
  try {
    return findOperation(op, ctx.registry)
  } catch (err) {
    if (err instanceof Refusal) return null
    throw err
  }
}

/**
 * The mill as the jobs of one batch see it: a batch multiplies work, so every task that may do heavy work is heavy
 * work for the access policy (a light operation whose input sends it to the mill too: /pack exact, large /diff,
 * /clauses, /quiz), and the batch may start at most MAX_BATCH_MILL_JOBS of them. Short tasks (an input read, a pin
 * hashed: linear in bytes the batch's body already holds, isShortRun) are neither.
 */
function batchMill(ctx: OperationContext): Mill {
  let started = 0
  const mill = ctx.mill
  return {
    isSaturated: () => mill.isSaturated(),
    agents: () => mill.agents(),
    stats: () => mill.stats(),
    close: () => mill.close(),
    run(task, payload, options) {
      if (isShortRun(task, options)) return mill.run(task, payload, options)
      ctx.policy.authorize(ctx.principal, 'compute.heavy', undefined, options.op)
      if (++started > MAX_BATCH_MILL_JOBS) {
        throw new Refusal('over_limit', `a batch may start at most ${MAX_BATCH_MILL_JOBS} tasks in the mill`, {
          hints: { limit: 'MAX_BATCH_MILL_JOBS', value: MAX_BATCH_MILL_JOBS },
        })
      }
      return mill.run(task, payload, options)
    },
  }
}

/** Runs one job through the gate; a refusal becomes part of the result, a bug stays a bug. */
export async function dispatch(op: string, input: unknown, ctx: OperationContext, index = 0): Promise<ItemResult> {
  const start = performance.now()
  try {
    const target = findOperation(op, ctx.registry)
    if (NOT_DISPATCHABLE.has(target.name)) {
      throw new Refusal('invalid_input', `${target.name} cannot be dispatched through /run or /cli`)
    }
    const answer = await runOperation(target, input ?? {}, ctx)
    const ms = elapsed(start)
    return { index, op: target.name, ok: true, data: writtenBy(target.output, answer), refuse: null, ms }
  } catch (err) {
    if (!(err instanceof Refusal)) throw err
    return { index, op, ok: false, data: null, refuse: err.forOp(op).toBody(), ms: elapsed(start) }
  }
}

const elapsed = (start: number) => Math.round((performance.now() - start) * 1000) / 1000

/** The rest of the answer of one job dispatched alone (/run's single form, /cli). */
export const SINGLE_ANSWER = { mode: 'single', completed: 1, refused: 0, stopped_early: false } as const

/** A single dispatch answers with the inner refusal itself, so its HTTP status is the inner one. */
export function rethrowSingle(result: ItemResult): void {
  if (result.refuse) {
    const body: RefusalBody = result.refuse
    throw new Refusal(body.code, body.reason, {
      op: body.op, issues: body.issues, hints: body.hints, retryAfterS: body.retry_after_s,
    })
  }
}

/** A single operation's refusal is the answer's: any refusal an operation gives (not the transport's own). */
export const DISPATCHED_REFUSALS: readonly RefusalCode[] = REFUSAL_CODES.filter((code) => code !== 'method_not_allowed' && code !== 'headers_too_large' && code !== 'request_timeout')

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
    'Heavy work needs scope run:heavy when ADMIN_TOKEN is set (unless HEAVY_ACCESS=open), on this door as on every other; in a ' +
    'batch, so does every job whose input sends it to the mill.',
  input: runInput,
  output: runOutput,
  provenance: ['computed', 'measured', 'stored'],
  largeAnswer: true,
  refusals: DISPATCHED_REFUSALS,
  checkLimits: checkBatchSize,
  examples: [
    { op: 'captions' },
    { batch: [{ op: 'surface' }, { op: 'chat', input: {} }, { op: 'lexicon' }] },
  ],
  // A body over 64 KiB is read in the mill: each job's input comes back as a value while the loop's budget allows, as
  // its bytes past it, and is then read as its own route reads such a body (gate.ts runOperation).
  fromBody: async (body, ctx, read) => {
    const items = await read(ctx.mill.run('run.items', body.payload, body.options))
    const asBody = ({ op, input, wide }: { op: string; input?: unknown; wide?: Uint8Array }): RunJob =>
      ({ op, input: wide ? inputBytes(wide, ctx) : input })
    const input = 'batch' in items ? { ...items, batch: items.batch.map(asBody) } : asBody(items)
    checkBatchSize(input)
    return answerRun(input, ctx)
  },
  handler: (input, ctx) => answerRun(input, ctx),
})

function checkBatchSize(input: RunJob | { batch: RunJob[] }): void {
  if ('batch' in input && input.batch.length > MAX_BATCH) {
    throw new Refusal('over_limit', `a batch holds at most ${MAX_BATCH} jobs; this one has ${input.batch.length}`)
  }
}

/** /run's answer to its input, each job's input a value or a body the mill handed back as bytes. */
async function answerRun(input: RunJob | { batch: RunJob[]; stop_on_refusal: boolean }, ctx: OperationContext): Promise<JsonBytes> {
  if ('op' in input) {
    const result = await dispatch(input.op, input.input, ctx)
    rethrowSingle(result)
    return dispatchAnswer(runOutput, [itemBytes(result)], SINGLE_ANSWER)
  }
  // Scopes and counts are checked on the canonical operation, never on the spelling of its name.
  const heavyJobs = input.batch.filter((j) => canonicalOf(j.op, ctx)?.heavy).length
  if (heavyJobs > 0) ctx.policy.authorize(ctx.principal, 'compute.heavy', undefined, 'run')
  if (heavyJobs > MAX_BATCH_MILL_JOBS) {
    throw new Refusal('over_limit', `a batch holds at most ${MAX_BATCH_MILL_JOBS} heavy jobs; this one has ${heavyJobs}`, {
      hints: { limit: 'MAX_BATCH_MILL_JOBS', value: MAX_BATCH_MILL_JOBS },
    })
  }
  const jobCtx: OperationContext = { ...ctx, mill: batchMill(ctx) }
  const maxWeight = ctx.config.runBatchMaxWeight
  let weight = 0
  /**
   * What the batch writes is counted in bytes as each job answers; past the budget, answers become over_limit
   * refusals. A result is written as its bytes then, so the batch's answer only splices them.
   */
  const written = (result: ItemResult): { ok: boolean; bytes: JsonBytes } => {
    if (result.ok && (weight += result.data!.byteLength) > maxWeight) {
      const refusal = new Refusal('over_limit', `the batch's answers come to more than ${maxWeight} bytes of JSON (RUN_BATCH_MAX_WEIGHT)`, {
        op: result.op, hints: { limit: 'RUN_BATCH_MAX_WEIGHT', value: maxWeight },
      })
      result = { ...result, ok: false, data: null, refuse: refusal.toBody() }
    }
    return { ok: result.ok, bytes: itemBytes(result) }
  }
  const results: Array<{ ok: boolean; bytes: JsonBytes }> = []
  let stopped = false
  if (input.stop_on_refusal) {
    for await (const [index, j] of inTurns(input.batch.entries())) {
      const result = written(await dispatch(j.op, j.input, jobCtx, index))
      results.push(result)
      if (!result.ok) {
        stopped = index < input.batch.length - 1
        break
      }
    }
  } else {
    // Independent jobs go out together (the mill queues the heavy ones), each light one's work in a turn of its own:
    // run back to back in one turn, 64 `openapi` jobs held the loop 350-530 ms.
    const pending: Array<Promise<{ ok: boolean; bytes: JsonBytes }>> = []
    for await (const [index, j] of inTurns(input.batch.entries())) {
      const result = dispatch(j.op, j.input, jobCtx, index).then(written)
      result.catch(() => undefined) // a bug's rejection is Promise.all's to throw, not unhandled while the loop turns
      pending.push(result)
    }
    results.push(...(await Promise.all(pending)))
  }
  const refused = results.filter((r) => !r.ok).length
  const rest = { mode: 'batch', completed: results.length - refused, refused, stopped_early: stopped }
  return dispatchAnswer(runOutput, results.map((r) => r.bytes), rest)
}
