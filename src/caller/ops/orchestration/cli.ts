// POST /cli: a command line parsed into an operation and its input, then run through /run's gate.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { parseArgv, refuseOverlongOperation, tokenize } from '../../grammar.js'
import { Refusal } from '../../../http/refusal.js'
import { DISPATCHED_REFUSALS, dispatch, dispatchAnswer, itemBytes, rethrowSingle, runOutput } from './run.js'

const output = runOutput.extend({ parsed: z.object({ op: z.string(), input: z.record(z.string(), z.unknown()) }) })

export const cli = defineOperation({
  name: 'cli',
  method: 'POST',
  path: '/cli',
  lobe: 'orchestration',
  caption: 'Run a command line: `sat --dimacs "p cnf 1 1\\n1 0"`',
  summary:
    '{line} or {argv}: the same grammar as the ncm binary — quoted strings, --flag value, --flag=value, --no-flag, --a.b value, ' +
    "--json '{...}' for a whole body; values typed by the operation's input schema. @file values are refused over HTTP. " +
    'An unknown operation is refused with the closest names.',
  input: z.union([
    z.object({ line: z.string().min(1) }).strict(),
    z.object({ argv: z.array(z.string()).min(1).max(10_000) }).strict(),
  ]),
  output,
  provenance: ['computed', 'measured', 'stored'],
  largeAnswer: true,
  refusals: DISPATCHED_REFUSALS,
  examples: [{ line: 'captions' }, { argv: ['surface'] }],
  handler: async (input, ctx) => {
    if ('line' in input) refuseOverlongOperation(input.line, ctx.registry)
    const argv = 'line' in input ? tokenize(input.line) : input.argv
    const parsed = parseArgv(argv, ctx.registry)
    if (parsed.op.name === 'cli') throw new Refusal('invalid_input', 'cli cannot run cli')
    const result = await dispatch(parsed.op.name, parsed.input, ctx)
    rethrowSingle(result)
    return dispatchAnswer(output, [itemBytes(result)], {
      mode: 'single', completed: 1, refused: 0, stopped_early: false, parsed: { op: parsed.op.name, input: parsed.input },
    })
  },
})
