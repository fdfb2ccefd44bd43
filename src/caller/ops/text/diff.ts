// POST /diff: line, word or character diffs with a unified diff GNU patch applies; JSON diffs as RFC 6902 patches.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { heavyWork, lightWork } from '../../mill-work.js'
import type { DiffTaskOutcome } from '../../../mill/tasks/text.js'
import { JsonBytes } from '../../../json/bytes.js'
import { answerSchema } from '../../../json/serializer.js'
import { checkDiffLimits, DIFF_LIMITS, DIFF_MODES, diffAnswerBytes, diffInput, diffOnTheLoop, diffRefusal, diffRequest } from '../../../inputs/diff.js'
import { LOOP_VALUE_MAX_BYTES } from '../../../json/loop-rule.js'

export { DIFF_LIMITS }

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
  mode: z.enum(DIFF_MODES),
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
  input: diffInput,
  output,
  provenance: ['computed'],
  bodyLimit: 'large',
  largeAnswer: true,
  checkLimits: checkDiffLimits,
  examples: [
    { a: 'one\ntwo\nthree\n', b: 'one\n2\nthree\nfour\n' },
    { a: 'the quick brown fox', b: 'the slow brown fox', mode: 'words', context: 1 },
    { a: { name: 'ncm', tags: ['a', 'b'] }, b: { name: 'ncm', tags: ['a', 'c'], 'x/y': 1 }, mode: 'json' },
    { a: { n: 1 }, patch: [{ op: 'replace', path: '/n', value: 2 }], mode: 'json' },
  ],
  // A body over 64 KiB is read, checked and diffed in the mill from its bytes.
  fromBody: async (body, ctx, read) => {
    const payload = { ...body.payload, answer: answerSchema(output), maxResultWeight: ctx.config.diffPatchMaxWeight }
    return new JsonBytes([await read(ctx.mill.run('text.diffBody', payload, body.options))])
  },
  handler: async (input, ctx) => {
    const request = diffRequest(input, ctx.config.diffPatchMaxWeight)
    const answer = answerSchema(output)
    const inMill = (): Promise<DiffTaskOutcome> => ctx.mill.run('text.diff', { request, answer }, heavyWork(ctx, 'diff'))
    // Light work whose answer may pass what the loop writes is worked and written in the mill.
    const light = (): Promise<DiffTaskOutcome | 'heavy'> => ctx.mill.run('text.diffLight', { request, answer }, lightWork(ctx, 'diff'))
    const first = diffAnswerBytes(request) > LOOP_VALUE_MAX_BYTES ? await light() : diffOnTheLoop(request)
    const outcome = first === 'heavy' ? await inMill() : first
    if (!outcome.ok) throw diffRefusal(outcome)
    // From the mill, the answer comes written by its schema: sent as those bytes.
    if ('answer' in outcome) return new JsonBytes([outcome.answer])
    return { ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) }
  },
})
