// A heavy operation's large body made into its job's stored input, here in the mill (inputs/stored.ts): parsed,
// validated and its limits checked as its route does on the loop, then written as the JSON text the job keeps. The
// loop stores those bytes and hands them to the job's run, which reads them in the mill again: never a value there.
import { createHash } from 'node:crypto'
import { Refusal } from '../../http/refusal.js'
import { validationRefusal } from '../../http/validation.js'
import { checkJobBudget, jobSchemaOf } from '../../inputs/job-budget.js'
import { STORED_INPUTS, type StoredInputOp, type StoredInputRules } from '../../inputs/stored.js'
import type { z } from 'zod'
import { jsonBytesDeep } from '../../json/json-writer.js'
import { moving } from '../moving.js'
import type { TaskTable } from '../types.js'
import { NEEDS_HEAVY, validated, workFromBody, type BodyBlocksPayload, type FromBodyResult, type Judge } from './from-body.js'
import { guarded } from './logic.js'

export interface StoredInputPayload extends BodyBlocksPayload {
  op: StoredInputOp
  /** JOB_MAX_MS for an async submission (Prefer: respond-async: its timeout_ms may pass the sync cap); null for a sync call. */
  jobMaxMs: number | null
}

/** A job's input as it is stored: its JSON text, and the digest jobs give an input (SHA-256 of the op, a NUL, the text). */
export interface StoredInputBytes {
  json: Uint8Array
  digest: string
}

/** The input as its heavy route judges it (jobs/budget.ts inputForPath): the schema, then an async job's raised one. */
function judgedForJob(schema: z.ZodType, jobMaxMs: number | null): Judge<unknown> {
  return (value) => {
    const sync = validated(schema, value)
    if (sync.ok) return sync
    const raised = jobMaxMs === null ? null : jobSchemaOf(schema)
    const job = raised ? validated(raised, value) : sync
    if (!job.ok) return { ok: false, refusal: validationRefusal(job.failures, 'body') }
    try {
      checkJobBudget(job.input as { timeout_ms?: number }, jobMaxMs!)
    } catch (err) {
      if (err instanceof Refusal) return { ok: false, refusal: err }
      throw err
    }
    return job
  }
}

export function storedInputFromBody(payload: StoredInputPayload): FromBodyResult<StoredInputBytes, 'pin.write'> {
  const { op, jobMaxMs, mayWorkHeavy } = payload
  const rules: StoredInputRules = STORED_INPUTS[op]
  const work = (input: unknown) => {
    const checked = guarded(() => (rules.checkLimits(input), { value: null, warnings: [] }))
    if (!checked.ok) return checked
    // Admission comes after the limits, as on the loop (caller/gate.ts admitParsed).
    if (!mayWorkHeavy) return NEEDS_HEAVY
    // Written without recursion (a formula nests JSON_MAX_DEPTH deep), into bytes of their own (they move to the loop).
    const json = jsonBytesDeep(input)
    const digest = createHash('sha256').update(op).update('\0').update(json).digest('hex')
    return moving({ ok: true as const, value: { json, digest }, warnings: [] }, [json.buffer as ArrayBuffer])
  }
  return workFromBody(payload, rules.schema, work, rules.inputAction, judgedForJob(rules.schema, jobMaxMs))
}

export const storedInputTasks = {
  'jobs.storedInput': storedInputFromBody,
} satisfies TaskTable
