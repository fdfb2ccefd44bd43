// POST /run's input: read by its route on the loop and, from a large body's bytes, by the mill (mill/tasks/run-items.ts).
import { z } from 'zod'

/** The most jobs one batch holds. */
export const MAX_BATCH = 64

const job = z.object({ op: z.string().min(1).max(100), input: z.unknown().optional() }).strict()

export const runInput = z.union([
  z.object({ op: z.string().min(1).max(100), input: z.unknown().optional() }).strict(),
  z.object({ batch: z.array(job).min(1), stop_on_refusal: z.boolean().default(false) }).strict(),
])

export type RunInput = z.output<typeof runInput>
/** One job of a batch, or the single one: an operation's name, as the client spelled it, and its input. */
export type RunJob = { op: string; input?: unknown }
