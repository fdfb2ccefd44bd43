// POST /diff's input: its schema, limits and request, and the refusals of a diff's outcome. Read by its route on the
// loop and, for a large body, by the mill (mill/tasks/text.ts).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import type { JsonPatchOperation } from '../engines/diff/json-patch.js'
import { JsonPointerError, parsePointer } from '../engines/diff/json-pointer.js'
import { requestWeight, runDiff, type DiffOutcome, type DiffRequest } from '../engines/diff/run.js'
import { countTokens } from '../engines/diff/tokenize.js'
import { jsonDepth } from '../engines/digest/canonical-json.js'

export const DIFF_LIMITS = {
  /** Lines, tokens or code points per side. */
  tokensPerSide: 1_000_000,
  /** Nesting depth of JSON values (json mode). */
  jsonDepth: 256,
  /** Inner-loop steps per sequence diff before the rest is marked changed wholesale (then minimal: false). */
  work: 50_000_000,
  /** Inputs heavier than this (characters, or JSON nodes × 8 + characters) are diffed in the mill. */
  inline: 256 * 1024,
} as const

export const DIFF_MODES = ['lines', 'words', 'chars', 'json'] as const

const isPointer = (text: string) => {
  try {
    parsePointer(text)
    return true
  } catch (err) {
    if (err instanceof JsonPointerError) return false
    throw err
  }
}
const pointer = z.string().refine(isPointer, {
  message: 'not a JSON Pointer (RFC 6901): empty, or "/"-separated tokens in which "~" appears only as "~0" or "~1"',
})
const patchOperation = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: pointer, value: z.unknown() }).strict(),
  z.object({ op: z.literal('remove'), path: pointer }).strict(),
  z.object({ op: z.literal('replace'), path: pointer, value: z.unknown() }).strict(),
  z.object({ op: z.literal('move'), from: pointer, path: pointer }).strict(),
  z.object({ op: z.literal('copy'), from: pointer, path: pointer }).strict(),
  z.object({ op: z.literal('test'), path: pointer, value: z.unknown() }).strict(),
])

export const diffInput = z
  .object({
    a: z
      .unknown()
      .refine((v) => v !== undefined, 'a is required: the original, a string (any JSON value in json mode)')
      .describe('The original: a string in lines/words/chars mode, any JSON value in json mode'),
    b: z.unknown().optional().describe('The changed version, of the same kind as a'),
    patch: z
      .array(patchOperation)
      .max(100_000)
      .optional()
      .describe('json mode only, instead of b: an RFC 6902 patch to apply to a; the result is diffed and returned'),
    mode: z.enum(DIFF_MODES).default('lines'),
    context: z.number().int().min(0).max(10_000).default(3).describe('Units of context around each change'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.mode === 'json') {
      if ((v.b === undefined) === (v.patch === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['b'], message: 'json mode needs b or patch (exactly one)' })
      }
      return
    }
    for (const side of ['a', 'b'] as const) {
      if (typeof v[side] !== 'string') {
        ctx.addIssue({
          code: 'custom',
          path: [side],
          message: `${v.mode} mode diffs strings; ${side} is ${v[side] === undefined ? 'missing' : `a ${kindOf(v[side])}`} (use mode "json" for JSON values)`,
        })
      }
    }
    if (v.patch !== undefined) ctx.addIssue({ code: 'custom', path: ['patch'], message: 'patch is only read in json mode' })
  })

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)

export type DiffInput = z.output<typeof diffInput>

/** Declared limits, checked before any work: sizes of text sides, depth of JSON ones. */
export function checkDiffLimits(input: DiffInput): void {
  if (input.mode === 'json') {
    for (const [name, value] of [['a', input.a], ['b', input.b], ['patch', input.patch]] as const) {
      if (value !== undefined && jsonDepth(value, DIFF_LIMITS.jsonDepth) > DIFF_LIMITS.jsonDepth) {
        throw new Refusal('over_limit', `${name} is nested deeper than the limit of ${DIFF_LIMITS.jsonDepth} levels`)
      }
    }
    return
  }
  const limit = DIFF_LIMITS.tokensPerSide
  for (const side of ['a', 'b'] as const) {
    const text = input[side] as string
    const lines = countTokens(text, 'lines')
    // Words and code points never outnumber UTF-16 units, so short texts need no count.
    const units = input.mode === 'lines' ? lines : text.length <= limit ? 0 : countTokens(text, input.mode)
    if (lines > limit || units > limit) {
      const [count, unit] = units > lines ? [units, input.mode] : [lines, 'lines']
      throw new Refusal('over_limit', `${side} has ${count} ${unit}; the limit is ${limit} per side`)
    }
  }
}

/** The engine's request for an input (maxResultWeight: DIFF_PATCH_MAX_WEIGHT, the host's setting). */
export function diffRequest(input: DiffInput, maxResultWeight: number): DiffRequest & { maxResultWeight: number } {
  return {
    a: input.a,
    b: input.b,
    patch: input.patch as JsonPatchOperation[] | undefined,
    mode: input.mode,
    context: input.context,
    maxWork: DIFF_LIMITS.work,
    maxResultWeight,
  }
}

/** The refusal of a diff that has no answer: a patch that cannot be applied, or one that grows past its budget. */
export function diffRefusal(outcome: Exclude<DiffOutcome, { ok: true }>): Refusal {
  if ('overBudget' in outcome) {
    const { index, maxWeight } = outcome.overBudget
    return new Refusal('over_limit', `patch[${index}] would make the document weigh more than ${maxWeight} (nodes × 8 + characters; DIFF_PATCH_MAX_WEIGHT)`, {
      hints: { limit: 'DIFF_PATCH_MAX_WEIGHT', value: maxWeight },
    })
  }
  const { index, message } = outcome.patchError
  return new Refusal('invalid_input', `patch[${index}] cannot be applied to a: ${message}`, {
    issues: [{ path: `patch[${index}]`, message }],
  })
}

/**
 * The most JSON /diff answers for a request worked as on the loop: each unit of a and b a part of a hunk and again in
 * the unified text, escaped at most six times over (50 characters per unit of the request's weight covers both), and
 * with a patch the patched document, up to its budget.
 */
export function diffAnswerBytes(request: DiffRequest & { maxResultWeight: number }): number {
  const result = request.patch ? 6 * Math.min(DIFF_LIMITS.inline, request.maxResultWeight) : 0
  return 50 * requestWeight(request, DIFF_LIMITS.inline + 1) + result + 4096
}

/**
 * A diff as the route works it on the event loop: requests up to DIFF_LIMITS.inline, growing (a patch's copies) at most
 * to that size there; `heavy` when the route sends it to the mill instead, where it runs under the full budget.
 */
export function diffOnTheLoop(request: DiffRequest & { maxResultWeight: number }): DiffOutcome | 'heavy' {
  if (requestWeight(request, DIFF_LIMITS.inline) > DIFF_LIMITS.inline) return 'heavy'
  const outcome = runDiff({ ...request, maxResultWeight: Math.min(DIFF_LIMITS.inline, request.maxResultWeight) })
  return 'overBudget' in outcome && DIFF_LIMITS.inline < request.maxResultWeight ? 'heavy' : outcome
}
