// POST /diff: line, word or character diffs with a unified diff GNU patch applies; JSON diffs as RFC 6902 patches.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { budgetOf } from '../../../mill/pool.js'
import type { JsonPatchOperation } from '../../../engines/diff/json-patch.js'
import { JsonPointerError, parsePointer } from '../../../engines/diff/json-pointer.js'
import { requestWeight, runDiff, type DiffRequest } from '../../../engines/diff/run.js'
import type { DiffTaskOutcome } from '../../../mill/tasks/text.js'
import { JsonBytes } from '../../../json/bytes.js'
import { answerSchema } from '../../../json/serializer.js'
import { JsonText } from '../../../body-parse/text-members.js'
import { countTokens } from '../../../engines/diff/tokenize.js'
import { jsonDepth } from '../../../engines/digest/canonical-json.js'

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

const MODES = ['lines', 'words', 'chars', 'json'] as const

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

const input = z
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
    mode: z.enum(MODES).default('lines'),
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

const kindOf = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) || (v instanceof JsonText && v.text.startsWith('[')) ? 'array' : typeof v

/** json-mode sides that came as their JSON text (wide body members): parsed and depth-checked in the mill. */
function sidesAsText(input: { a: unknown; b?: unknown }): { a?: string; b?: string } | null {
  const texts: { a?: string; b?: string } = {}
  if (input.a instanceof JsonText) texts.a = input.a.text
  if (input.b instanceof JsonText) texts.b = input.b.text
  return texts.a === undefined && texts.b === undefined ? null : texts
}

const hunk = z.object({
  a_start: z.number().int(),
  a_count: z.number().int(),
  b_start: z.number().int(),
  b_count: z.number().int(),
  header: z.string(),
  parts: z.array(z.object({ kind: z.enum(['context', 'removed', 'added']), text: z.string() })),
})

const patchOut = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  from: z.string().optional(),
  value: z.unknown().optional(),
})

const output = z.object({
  mode: z.enum(MODES),
  unit: z.enum(['line', 'token', 'char']),
  added: z.number().int(),
  removed: z.number().int(),
  hunks: z.array(hunk),
  unified: z.string(),
  minimal: z.boolean(),
  verified: z.boolean(),
  patch: z.array(patchOut).optional(),
  result: z.unknown().optional().describe('json mode with patch: a with the patch applied'),
})

export const diff = defineOperation({
  name: 'diff',
  method: 'POST',
  path: '/diff',
  lobe: 'text',
  caption: 'Line/word/char diffs with a unified diff GNU patch applies; JSON diffs as RFC 6902 patches',
  summary:
    "Myers' O(ND) diff (linear-space middle-snake variant). added/removed/hunks count the mode's unit (lines; words " +
    'and the whitespace between them; code points). unified is always a line diff of a → b that GNU patch applies ' +
    '(hunk headers as diff -u writes them, "\\ No newline at end of file" where needed). json mode diffs two JSON values: ' +
    'patch is an RFC 6902 patch (add/remove/replace, JSON Pointers escaped) that turns a into b, and unified compares ' +
    'the values printed with sorted keys and a 2-space indent; send patch instead of b to apply one. Every answer is ' +
    'checked before it is returned (verified). minimal is false when the work budget cut the search short. Inputs ' +
    'over 256 Ki characters, and JSON values of large bodies (kept as their text from the body to the mill), are diffed in ' +
    'the mill, off the event loop (and refused with occupied while the host sheds load).',
  textMembers: ['a', 'b'],
  input,
  output,
  provenance: ['computed'],
  bodyLimit: 'large',
  largeAnswer: true,
  checkLimits: (input) => {
    if (input.mode === 'json') {
      for (const [name, value] of [['a', input.a], ['b', input.b], ['patch', input.patch]] as const) {
        // A side sent as text is depth-checked where it is parsed (the mill), with the same refusal.
        if (value !== undefined && !(value instanceof JsonText) && jsonDepth(value, DIFF_LIMITS.jsonDepth) > DIFF_LIMITS.jsonDepth) {
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
  },
  examples: [
    { a: 'one\ntwo\nthree\n', b: 'one\n2\nthree\nfour\n' },
    { a: 'the quick brown fox', b: 'the slow brown fox', mode: 'words', context: 1 },
    { a: { name: 'ncm', tags: ['a', 'b'] }, b: { name: 'ncm', tags: ['a', 'c'], 'x/y': 1 }, mode: 'json' },
    { a: { n: 1 }, patch: [{ op: 'replace', path: '/n', value: 2 }], mode: 'json' },
  ],
  handler: async (input, ctx) => {
    const maxResultWeight = ctx.config.diffPatchMaxWeight
    const texts = input.mode === 'json' ? sidesAsText(input) : null
    const request: DiffRequest = {
      // Sides sent as text cross to the mill as that text, not as a clone of the value.
      a: texts?.a !== undefined ? null : input.a,
      b: texts?.b !== undefined ? null : input.b,
      patch: input.patch as JsonPatchOperation[] | undefined,
      mode: input.mode,
      context: input.context,
      maxWork: DIFF_LIMITS.work,
      maxResultWeight,
    }
    const inMill = async (): Promise<DiffTaskOutcome> => {
      ctx.admission.admitHeavy('diff', ctx.principal)
      const payload = { request, maxDepth: DIFF_LIMITS.jsonDepth, answer: answerSchema(output), ...(texts ? { texts } : {}) }
      return ctx.mill.run('text.diff', payload, { timeoutMs: budgetOf(undefined), op: 'diff', owner: ctx.principal.owner })
    }
    let outcome: DiffTaskOutcome | ReturnType<typeof runDiff>
    if (texts || requestWeight(request, DIFF_LIMITS.inline) > DIFF_LIMITS.inline) {
      outcome = await inMill()
    } else {
      // A small request may still grow (copy doubles a document): on the loop it may only grow to the inline size;
      // past that it is applied again in the mill, under the full budget.
      outcome = runDiff({ ...request, maxResultWeight: Math.min(DIFF_LIMITS.inline, maxResultWeight) })
      if ('overBudget' in outcome && DIFF_LIMITS.inline < maxResultWeight) outcome = await inMill()
    }
    if ('tooDeep' in outcome) {
      const { side, maxDepth } = outcome.tooDeep
      throw new Refusal('over_limit', `${side} is nested deeper than the limit of ${maxDepth} levels`)
    }
    if ('overBudget' in outcome) {
      const { index, maxWeight } = outcome.overBudget
      throw new Refusal('over_limit', `patch[${index}] would make the document weigh more than ${maxWeight} (nodes × 8 + characters; DIFF_PATCH_MAX_WEIGHT)`, {
        hints: { limit: 'DIFF_PATCH_MAX_WEIGHT', value: maxWeight },
      })
    }
    if (!outcome.ok) {
      const { index, message } = outcome.patchError
      throw new Refusal('invalid_input', `patch[${index}] cannot be applied to a: ${message}`, {
        issues: [{ path: `patch[${index}]`, message }],
      })
    }
    // From the mill, the answer comes written by its schema: sent as those bytes.
    if ('answer' in outcome) return new JsonBytes([outcome.answer])
    return { ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) }
  },
})
