// A large /cli body read in the mill (issue #30 item 1): parsed and validated as the route does, its line tokenised
// and parsed by the same grammar (the host's operations as plain data), its input handed back as a value when it fits
// in what a body parsed on the loop may hold, or as its JSON's bytes, read as its own route reads such a body
// (caller/gate.ts runOperation). The parsed command the answer echoes is written here.
import { cliInput } from '../../inputs/cli.js'
import { parseCommand, refuseOverlongOperation, tokenize, type CommandTable } from '../../inputs/command-line.js'
import { Refusal } from '../../http/refusal.js'
import { jsonBytesDeep } from '../../json/json-writer.js'
import { LOOP_BODY_MAX_VALUES, valuesUpTo } from '../../json/loop-rule.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { moving } from '../moving.js'
import type { TaskTable } from '../types.js'
import { refusedAsData, workFromBody, type BodyBlocksPayload, type BodyWork, type FromBodyResult } from './from-body.js'

export interface CliCommandPayload extends BodyBlocksPayload {
  commands: CommandTable
  /** The schema the answer's `parsed` member ({op, input}) is written by. */
  parsed: AnswerSchema
}

/** The command a line names: its operation, its input (a value, or its JSON's bytes: `wide`), and `parsed` written. */
export interface CliCommand {
  op: string
  input?: Record<string, unknown>
  wide?: Uint8Array
  parsed: Uint8Array
}

export function cliCommandFromBody({ commands, parsed, ...body }: CliCommandPayload): FromBodyResult<CliCommand> {
  return workFromBody(body, cliInput, (input) => refusedAsData((): BodyWork<CliCommand> => {
    if ('line' in input) refuseOverlongOperation(input.line, commands)
    const argv = 'line' in input ? tokenize(input.line) : input.argv
    const command = parseCommand(argv, commands, (op) => op.schema)
    if (command.op.name === 'cli') throw new Refusal('invalid_input', 'cli cannot run cli')
    const op = command.op.name
    const written = answerBytes(parsed, { op, input: command.input })
    // The answer, its op and its input object are values too.
    if (valuesUpTo(command.input, LOOP_BODY_MAX_VALUES - 2) !== null) {
      return moving({ ok: true as const, value: { op, input: command.input, parsed: written }, warnings: [] }, [written.buffer as ArrayBuffer])
    }
    // Written without recursion: a --json input may nest JSON_MAX_DEPTH deep.
    const wide = jsonBytesDeep(command.input)
    return moving({ ok: true as const, value: { op, wide, parsed: written }, warnings: [] }, [written.buffer as ArrayBuffer, wide.buffer as ArrayBuffer])
  }))
}

export const cliCommandTasks = {
  'cli.command': cliCommandFromBody,
} satisfies TaskTable
