// Answers a mill task writes (/diff's whole answer; /sat's model and models, /jsonsat's model and assignment, spliced
// into the rest) are the
// route's own serializer's text: byte for byte what fast-json-stringify writes for the same data through the route's
// schema, on real data with the characters JSON escapes.
import { describe, expect, it } from 'vitest'
import { answerSchema, serializerOf } from '../../json/serializer.js'
import { JsonBytes } from '../../json/bytes.js'
import { runDiff, type DiffRequest } from '../../engines/diff/run.js'
import { diffTask } from '../../mill/tasks/text.js'
import { jsonSatWork, logicTasks, satWork } from '../../mill/tasks/logic.js'
import { NO_PROGRESS } from '../../mill/progress.js'
import type { OperationContext } from '../operation.js'
import { INTERNAL_PRINCIPAL } from '../../access/policy.js'
import { diff } from './text/diff.js'
import { jsonsat } from './logic/jsonsat.js'
import { sat } from './logic/sat.js'

/** What the handler needs of its context, with a mill that runs the task here on a structured clone of its payload. */
function contextWith(run: (task: string, payload: unknown) => unknown): OperationContext {
  return {
    config: { diffPatchMaxWeight: 2 * 1024 * 1024 },
    admission: { admitHeavy: () => undefined },
    principal: INTERNAL_PRINCIPAL,
    mill: { run: async (task: string, payload: unknown) => structuredClone(run(task, structuredClone(payload))) },
  } as unknown as OperationContext
}

const writtenDiff = (outcome: ReturnType<typeof diffTask>): Uint8Array => {
  if (!outcome.ok) throw new Error('the request does not diff')
  return outcome.answer
}

const textOf = (answer: unknown): string => {
  expect(answer).toBeInstanceOf(JsonBytes)
  return (answer as JsonBytes).text()
}
/** Two solves of the same formula differ only in their measured times. */
const untimed = (text: string) => text.replace(/"(time_ms|check_ms)":[^,}]+/g, '"$1":0')

/** Strings JSON escapes, or that serialisers have escaped differently: quotes, controls, U+2028, a lone surrogate, emoji. */
const ODD = ['plain', 'a"b\\c', 'tab\there\nnewline', '\u0000\u001f', 'line\u2028sep', 'lone \ud800 half', 'émoji 😀', '</script>']

describe('/diff written in the mill', () => {
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
    // Over DIFF_LIMITS.inline (256 Ki characters): diffed in the mill.
    ['lines', { a: ODD.join('\n').repeat(3_000), b: [...ODD].reverse().join('\n').repeat(3_000), mode: 'lines', context: 3 }],
    ['chars', { a: ODD.join(' ').repeat(3_000), b: ODD.join('-').repeat(3_000), mode: 'chars', context: 1 }],
  ]
  const serialize = serializerOf(diff.output)

  it.each(requests)('%s: the answer\'s bytes are fast-json-stringify\'s', async (_name, request) => {
    const outcome = runDiff({ ...request, maxWork: 50_000_000 })
    if (!outcome.ok) throw new Error('the request does not diff')
    const plain = { ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) }
    // json requests under DIFF_LIMITS.inline run on the loop through the handler: their task is run here directly.
    const answer = request.mode === 'json'
      ? new JsonBytes([writtenDiff(diffTask({ request: { ...request, maxWork: 50_000_000 }, answer: answerSchema(diff.output) }))])
      : await diff.handler(request as never, contextWith((_task, payload) => diffTask(payload as never)))
    expect(textOf(answer)).toBe(serialize(plain))
  })
})

describe('/jsonsat model and assignment written in the mill', () => {
  // Names JSON escapes, an integer-like pair (objects list those first) and __proto__ (an own key, not the prototype).
  const names = [...ODD, '10', '2', '__proto__', ...Array.from({ length: 5_000 }, (_, i) => `v${i}`)]
  const formula = { and: [...names.map((name, i) => (i % 4 === 0 ? { not: { var: name } } : { var: name })), { or: [{ var: 'v1' }, { var: 'v2' }] }] }
  const serialize = serializerOf(jsonsat.output)

  it('the answer\'s bytes are fast-json-stringify\'s for the same solve', async () => {
    const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
    let plain: unknown
    const ctx = contextWith((_task, payload) => {
      const solved = jsonSatWork(payload as never, context.deadline, context)
      if (!solved.ok) throw new Error(solved.refusal.reason)
      plain = solved.value
      return logicTasks['logic.jsonsat'](payload as never, context)
    })
    const answer = await jsonsat.handler({ formula, want_model: true, want_cnf: false, proof: 'none' } as never, ctx)
    const { assignment, cnf } = plain as { assignment: object; cnf: object }
    expect(Object.keys(assignment).slice(0, 2)).toEqual(['2', '10'])
    expect(untimed(textOf(answer))).toBe(untimed(serialize({ ...(plain as object), cnf: { ...cnf, sha256: null, url: null } })))
  })

  it('an UNSAT answer (no model, nothing spliced) is the same text too', async () => {
    const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
    const unsat = { and: [{ var: ODD[1] }, { not: { var: ODD[1] } }] }
    let plain: unknown
    const ctx = contextWith((_task, payload) => {
      plain = (jsonSatWork(payload as never, context.deadline, context) as { value: unknown }).value
      return logicTasks['logic.jsonsat'](payload as never, context)
    })
    const answer = await jsonsat.handler({ formula: unsat, want_model: true, want_cnf: false, proof: 'none' } as never, ctx)
    const { cnf } = plain as { cnf: object }
    expect(untimed(textOf(answer))).toBe(untimed(serialize({ ...(plain as object), cnf: { ...cnf, sha256: null, url: null } })))
    expect(JSON.parse(textOf(answer))).toMatchObject({ status: 'UNSAT', model: null, assignment: null })
  })
})

describe('/sat model and models written in the mill', () => {
  const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
  // 3,000 variables, each clause leaving many models.
  const dimacs = `p cnf 3000 1500\n${Array.from({ length: 1500 }, (_, i) => `${i + 1} -${i + 1501} 0`).join('\n')}\n`

  it.each([[undefined], [5]])('models %s: the answer\'s bytes are fast-json-stringify\'s for the same solve', async (models) => {
    let plain: unknown
    const ctx = contextWith((_task, payload) => {
      plain = (satWork(payload as never, context.deadline, context) as { value: unknown }).value
      return logicTasks['logic.sat'](payload as never, context)
    })
    const answer = await sat.handler({ dimacs, want_model: true, proof: 'none', ...(models ? { models } : {}) } as never, ctx)
    expect(untimed(textOf(answer))).toBe(untimed(serializerOf(sat.output)(plain)))
    expect(JSON.parse(textOf(answer)).model).toHaveLength(3000)
  })
})
