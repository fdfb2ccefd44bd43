// The command-line grammar (inputs/command-line.ts) over this host's registry, and as a mill task takes it.
import type { AnyOperation, Registry } from './operation.js'
import { inputJsonSchema } from './projections.js'
import {
  findCommand, parseCommand, refuseOverlongOperation as refuseOverlongWord,
  type CommandSchema, type CommandTable, type JsonSchemaNode, type ParseOptions, type ParsedCommand,
} from '../inputs/command-line.js'

export { editDistance, tokenize, type CommandTable } from '../inputs/command-line.js'

/** Finds an operation by name, by path ('/sat', 'skills.md') or by name with dashes; not_found names the closest. */
export const findOperation = (word: string, registry: Registry): AnyOperation => findCommand(word, registry.operations)

/** Refuses a line whose first word is longer than any operation's, before the line is tokenised. */
export const refuseOverlongOperation = (line: string, registry: Registry): void => refuseOverlongWord(line, registry.operations)

/** argv = [op, ...args], its flags typed by the operation's input schema (parseCommand). */
export const parseArgv = (argv: readonly string[], registry: Registry, options: ParseOptions = {}): ParsedCommand<AnyOperation> =>
  parseCommand(argv, registry.operations, (op) => inputJsonSchema(op) as CommandSchema, options)

const tables = new WeakMap<Registry, CommandTable>()

export function commandTable(registry: Registry): CommandTable {
  let table = tables.get(registry)
  if (!table) {
    table = registry.operations.map((op) => {
      const { properties, required } = inputJsonSchema(op) as CommandSchema
      return { name: op.name, path: op.path, schema: { properties: properties && typesOf(properties), required } }
    })
    tables.set(registry, table)
  }
  return table
}

const typesOf = (properties: Record<string, JsonSchemaNode>): Record<string, JsonSchemaNode> =>
  Object.fromEntries(Object.entries(properties).map(([name, node]) => [name, typeOf(node)]))

function typeOf({ type, properties, anyOf }: JsonSchemaNode): JsonSchemaNode {
  return {
    ...(type !== undefined ? { type } : {}),
    ...(properties ? { properties: typesOf(properties) } : {}),
    ...(anyOf ? { anyOf: anyOf.map(typeOf) } : {}),
  }
}
