// The answer parts a mill task writes as JSON text (/diff's hunks, patch and result; /jsonsat's model and assignment)
// are spliced into the answer as they are: the answer's text must be exactly what fast-json-stringify writes for the
// same data through the route's schema (zodSerializerCompiler), on real data with the characters JSON escapes.
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { zodSerializerCompiler } from '../../plugins/serializer.js'
import { shapeOf } from '../../answer-shape.js'
import { writeInTurns } from '../../json-writer.js'
import { runDiff, type DiffRequest } from '../../engines/diff/run.js'
import { diffTask } from '../../mill/tasks/text.js'
import { jsonSatWork, writtenJsonSat, type JsonSatTaskPayload } from '../../mill/tasks/logic.js'
import { NO_PROGRESS } from '../../mill/progress.js'
import { WrittenJson } from '../../written-json.js'
import type { OperationContext } from '../operation.js'
import { INTERNAL_PRINCIPAL } from '../../access/policy.js'
import { diff } from './text/diff.js'
import { jsonsat } from './logic/jsonsat.js'

const serializerOf = (schema: z.ZodType) => zodSerializerCompiler({ schema, method: 'POST', url: '', httpStatus: '200' }) as (data: unknown) => string

/** What the handler needs of its context, with a mill that runs the task here on a structured clone of its payload. */
function contextWith(run: (task: string, payload: unknown) => unknown): OperationContext {
  return {
    config: { diffPatchMaxWeight: 2 * 1024 * 1024 },
    admission: { admitHeavy: () => undefined },
    principal: INTERNAL_PRINCIPAL,
    mill: { run: async (task: string, payload: unknown) => run(task, structuredClone(payload)) },
  } as unknown as OperationContext
}

/** Strings JSON escapes, or that serialisers have escaped differently: quotes, controls, U+2028, a lone surrogate, emoji. */
const ODD = ['plain', 'a"b\\c', 'tab\there\nnewline', '\u0000\u001f', 'line\u2028sep', 'lone \ud800 half', 'émoji 😀', '</script>']

describe('/diff parts written in the mill', () => {
  const wide = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}/${ODD[i % ODD.length]}~`, i % 7 === 0 ? { n: i, s: ODD[i % ODD.length] } : i]))
  const changed = Object.fromEntries(Object.entries(wide).filter((_, i) => i % 5 !== 0).map(([k, v], i) => [k, i % 3 === 0 ? `${ODD[i % ODD.length]}${i}` : v]))
  const pointer = (key: string) => '/' + key.replace(/~/g, '~0').replace(/\//g, '~1')
  const [first, second] = Object.keys(wide)
  const requests: Array<[string, Omit<DiffRequest, 'maxWork'>]> = [
    ['json, a wide object against a changed copy', { a: wide, b: { ...changed, added: [1.5, -0, 1e21, null, true] }, mode: 'json', context: 3 }],
    ['json, a wide object against {}', { a: wide, b: {}, mode: 'json', context: 0 }],
    ['json with a patch (result written too)', {
      a: wide, mode: 'json', context: 2,
      patch: [{ op: 'add', path: '/x', value: { deep: [ODD] } }, { op: 'move', from: pointer(second!), path: '/moved' }, { op: 'remove', path: pointer(first!) }],
    }],
    // Over DIFF_LIMITS.inline (256 Ki characters): diffed in the mill, its hunks written there.
    ['lines', { a: ODD.join('\n').repeat(3_000), b: [...ODD].reverse().join('\n').repeat(3_000), mode: 'lines', context: 3 }],
    ['chars', { a: ODD.join(' ').repeat(3_000), b: ODD.join('-').repeat(3_000), mode: 'chars', context: 1 }],
  ]
  const serialize = serializerOf(diff.output)

  it.each(requests)('%s: the answer\'s text is fast-json-stringify\'s', async (_name, request) => {
    const full = { ...request, maxWork: 50_000_000 }
    const outcome = runDiff(full)
    if (!outcome.ok) throw new Error('the request does not diff')
    const plain = { ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) }
    // The handler with every side sent as text (as from a wide body) and the diff in the mill.
    const input = { ...request, a: new WrittenJson([JSON.stringify(request.a)]), ...(request.b !== undefined ? { b: request.mode === 'json' ? new WrittenJson([JSON.stringify(request.b)]) : request.b } : {}) }
    const viaText = request.mode === 'json' ? input : request
    const written = await diff.handler(viaText as never, contextWith((_task, payload) => diffTask(payload as never)))
    expect(written.hunks).toBeInstanceOf(WrittenJson)
    expect((await writeInTurns(written, shapeOf(diff.output))).text()).toBe(serialize(plain))
  })
})

describe('/jsonsat model and assignment written in the mill', () => {
  // Names JSON escapes, an integer-like pair (objects list those first) and __proto__ (an own key, not the prototype).
  const names = [...ODD, '10', '2', '__proto__', ...Array.from({ length: 5_000 }, (_, i) => `v${i}`)]
  const formula = { and: [...names.map((name, i) => (i % 4 === 0 ? { not: { var: name } } : { var: name })), { or: [{ var: 'v1' }, { var: 'v2' }] }] }
  const serialize = serializerOf(jsonsat.output)

  it('the answer\'s text is fast-json-stringify\'s for the same solve', async () => {
    let plain: unknown
    const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
    const ctx = contextWith((_task, payload) => {
      const result = jsonSatWork(payload as JsonSatTaskPayload, context.deadline, context)
      if (!result.ok) throw new Error(result.refusal.reason)
      plain = result.value
      return { ...result, value: writtenJsonSat(result.value) }
    })
    const written = await jsonsat.handler({ formula, want_model: true } as never, ctx)
    expect(written.model).toBeInstanceOf(WrittenJson)
    expect(Object.keys((plain as { assignment: object }).assignment).slice(0, 2)).toEqual(['2', '10'])
    const { cnf } = plain as { cnf: object }
    expect((await writeInTurns(written, shapeOf(jsonsat.output))).text()).toBe(serialize({ ...(plain as object), cnf: { ...cnf, sha256: null, url: null } }))
  })
})
