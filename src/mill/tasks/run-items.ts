// A large /run body read in the mill (issue #30 item 1): parsed and validated as the route does, then handed back with
// no more values than a body parsed on the loop may hold. The jobs' inputs, in order, cross back as values while they
// fit in that budget; a job whose input does not is handed back as its input's JSON bytes, for its operation to read
// as it reads a large body of its own route (caller/gate.ts runOperation).
import { runInput, type RunInput, type RunJob } from '../../inputs/run.js'
import { jsonBytesDeep } from '../../json/json-writer.js'
import { LOOP_BODY_MAX_VALUES, valuesUpTo } from '../../json/loop-rule.js'
import { moving } from '../moving.js'
import type { TaskTable } from '../types.js'
import { workFromBody, type BodyBlocksPayload, type FromBodyResult } from './from-body.js'

/** A job whose input crossed back as its JSON's bytes (`wide`), not as a value. */
export type RunItem = RunJob & { wide?: Uint8Array }

/** /run's input as it reaches the loop: the single job or the batch, each job's input a value or its bytes. */
export type RunItems = { op: string; input?: unknown; wide?: Uint8Array } | { batch: RunItem[]; stop_on_refusal: boolean }

export function runItemsFromBody(payload: BodyBlocksPayload): FromBodyResult<RunItems> {
  return workFromBody(payload, runInput, (input: RunInput) => {
    const jobs: RunItem[] = 'batch' in input ? input.batch : [input]
    // The jobs' objects and names and the batch around them are values too (the body, its batch and stop_on_refusal).
    let budget = LOOP_BODY_MAX_VALUES - 3 - 2 * jobs.length
    const moved: ArrayBuffer[] = []
    for (const job of jobs) {
      if (job.input === undefined) continue
      const values = budget > 0 ? valuesUpTo(job.input, budget) : null
      if (values !== null) {
        budget -= values
        continue
      }
      // Written without recursion: an input may nest JSON_MAX_DEPTH deep.
      const wide = jsonBytesDeep(job.input)
      delete job.input
      job.wide = wide
      moved.push(wide.buffer as ArrayBuffer)
    }
    return moving({ ok: true as const, value: input as RunItems, warnings: [] }, moved)
  })
}

export const runItemsTasks = {
  'run.items': runItemsFromBody,
} satisfies TaskTable
