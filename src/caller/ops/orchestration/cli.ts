// POST /cli: a command line parsed into an operation and its input, then run through /run's gate.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { commandTable, parseArgv, refuseOverlongOperation, tokenize } from '../../grammar.js'
import { inputBytes } from '../../gate.js'
import { answerSchema } from '../../../json/serializer.js'
import { Refusal } from '../../../http/refusal.js'
import { cliInput } from '../../../inputs/cli.js'
import { DISPATCHED_REFUSALS, dispatch, dispatchAnswer, itemBytes, rethrowSingle, runOutput, SINGLE_ANSWER } from './run.js'

const parsedCommand = z.object({ op: z.string(), input: z.record(z.string(), z.unknown()) })
const output = runOutput.extend({ parsed: parsedCommand })

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
  input: cliInput,
  output,
  provenance: ['computed', 'measured', 'stored'],
  largeAnswer: true,
  refusals: DISPATCHED_REFUSALS,
  examples: [{ line: 'captions' }, { argv: ['surface'] }],
  // A body over 64 KiB is read in the mill: its line tokenised and parsed there, its input handed back as a value, or as
  // its bytes when too wide for the loop (read as its own route reads such a body), and the echoed command written.
  fromBody: async (body, ctx, read) => {
    const payload = { ...body.payload, commands: commandTable(ctx.registry), parsed: answerSchema(parsedCommand) }
    const command = await read(ctx.mill.run('cli.command', payload, body.options))
    const result = await dispatch(command.op, command.wide ? inputBytes(command.wide, ctx) : command.input, ctx)
    rethrowSingle(result)
    return dispatchAnswer(output, [itemBytes(result)], SINGLE_ANSWER, { parsed: command.parsed })
  },
  handler: async (input, ctx) => {
    if ('line' in input) refuseOverlongOperation(input.line, ctx.registry)
    const argv = 'line' in input ? tokenize(input.line) : input.argv
    const parsed = parseArgv(argv, ctx.registry)
    if (parsed.op.name === 'cli') throw new Refusal('invalid_input', 'cli cannot run cli')
    const result = await dispatch(parsed.op.name, parsed.input, ctx)
    rethrowSingle(result)
    return dispatchAnswer(output, [itemBytes(result)], { ...SINGLE_ANSWER, parsed: { op: parsed.op.name, input: parsed.input } })
  },
})
