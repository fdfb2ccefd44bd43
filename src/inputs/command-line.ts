// The command-line grammar shared by POST /cli (on the loop, and in the mill for a large body) and the `ncm` binary:
// tokenising, operation names, flags → fields typed by the operation's input schema, closest names. It reads the
// operations as plain data (CommandOp), so a mill worker reads a line as the loop does.
import { Refusal } from '../http/refusal.js'
import { parseJsonText } from '../body-parse/json-text.js'

/** What the grammar knows of an operation: its name and path, to find it by, and its input's JSON Schema, to type flags. */
export interface CommandOp {
  name: string
  path: string
}

/** The grammar as plain data, for a mill task: each operation's name, path and input schema (only what types flags). */
export type CommandTable = ReadonlyArray<CommandOp & { schema: CommandSchema }>

/** An operation's input as the grammar reads it: the JSON Schema's properties (their types, nested) and required names. */
export interface CommandSchema {
  properties?: Record<string, JsonSchemaNode>
  required?: string[]
}

const SINGLE = 0x27
const DOUBLE = 0x22
const BACKSLASH = 0x5c
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && /\s/.test(String.fromCharCode(c)))
/** Where a run of plain characters ends: a quote, a backslash or white space. */
const PLAIN_END = /['"\\\s]/g
const unterminated = (quote: 'single' | 'double') => new Refusal('invalid_input', `unterminated ${quote} quote in the command line`)

/**
 * Splits a line like a POSIX shell would: single quotes literal, double quotes with \-escapes, backslash escapes.
 * Runs of plain characters are taken as slices, so a 15 MB line costs one pass (appending it character by character
 * took 12 s).
 */
export function tokenize(line: string): string[] {
  const out: string[] = []
  let parts: string[] = []
  let inToken = false
  const n = line.length
  let i = 0
  while (i < n) {
    const c = line.charCodeAt(i)
    if (c === SINGLE) {
      const end = line.indexOf("'", i + 1)
      if (end < 0) throw unterminated('single')
      parts.push(line.slice(i + 1, end))
      inToken = true
      i = end + 1
    } else if (c === DOUBLE) {
      let from = ++i
      for (;;) {
        if (i >= n) throw unterminated('double')
        const d = line.charCodeAt(i)
        if (d === DOUBLE) break
        if (d === BACKSLASH && i + 1 < n && '"\\$`'.includes(line[i + 1]!)) {
          parts.push(line.slice(from, i), line[i + 1]!)
          i += 2
          from = i
        } else i++
      }
      parts.push(line.slice(from, i))
      inToken = true
      i++
    } else if (c === BACKSLASH && i + 1 < n) {
      parts.push(line[i + 1]!)
      inToken = true
      i += 2
    } else if (isSpace(c)) {
      if (inToken) out.push(parts.join(''))
      parts = []
      inToken = false
      i++
    } else {
      const from = i
      PLAIN_END.lastIndex = i + 1
      i = PLAIN_END.exec(line)?.index ?? n
      if (i === n - 1 && line.charCodeAt(i) === BACKSLASH) i = n // a final backslash is itself
      parts.push(line.slice(from, i))
      inToken = true
    }
  }
  if (inToken) out.push(parts.join(''))
  return out
}

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!
      prev[j] = Math.min(above + 1, prev[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return prev[b.length]!
}

/** Operation names are short: longer words are cut to this before they are compared (the distance is O(n·m)). */
const COMPARED_CHARS = 64

export function closestNames(name: string, ops: readonly CommandOp[], count = 3): string[] {
  const word = name.slice(0, COMPARED_CHARS).toLowerCase()
  return ops
    .map((op) => ({ name: op.name, d: editDistance(word, op.name) }))
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name))
    .slice(0, count)
    .map((x) => x.name)
}

/** No operation name or path is longer than this: a longer word is only compared (cut) for the closest names. */
const LONGEST_OP_WORD = 1024
/** A first word of plain characters longer than any operation's (white space before it skipped). */
const OVERLONG_FIRST_WORD = new RegExp(`\\s*([^\\s'"\\\\]{${LONGEST_OP_WORD + 1}})`, 'y')

function unknownOperation(word: string, length: string, ops: readonly CommandOp[]): Refusal {
  const shown = word.length > COMPARED_CHARS ? `${word.slice(0, COMPARED_CHARS)}… (${length} characters)` : word
  return new Refusal('not_found', `no operation named ${JSON.stringify(shown)}`, {
    hints: { closest: closestNames(word.slice(0, LONGEST_OP_WORD).replace(/^\/+/, ''), ops) },
  })
}

/**
 * Refuses a command line whose first word is longer than any operation's before the line is tokenised: a 15 MB unknown
 * word cost a pass over the whole line (~20 ms of the event loop) only to be refused.
 */
export function refuseOverlongOperation(line: string, ops: readonly CommandOp[]): void {
  OVERLONG_FIRST_WORD.lastIndex = 0
  const word = OVERLONG_FIRST_WORD.exec(line)?.[1]
  if (word !== undefined) throw unknownOperation(word, `over ${LONGEST_OP_WORD}`, ops)
}

/** Finds an operation by name, by path ('/sat', 'skills.md') or by name with dashes. */
export function findCommand<T extends CommandOp>(word: string, ops: readonly T[]): T {
  const bare = word.slice(0, LONGEST_OP_WORD).replace(/^\/+/, '')
  const lower = bare.toLowerCase()
  const named = (name: string) => ops.find((o) => o.name === name)
  const op = word.length > LONGEST_OP_WORD ? undefined :
    named(bare) ??
    named(bare.replaceAll('-', '_')) ??
    ops.find((o) => o.path === `/${bare}`) ??
    named(lower.replaceAll('-', '_')) ??
    ops.find((o) => o.path.toLowerCase() === `/${lower}`)
  if (!op) throw unknownOperation(word, String(word.length), ops)
  return op
}

export interface ParseOptions {
  /** Resolves `@path` values and positional files; absent over HTTP, where they are refused. */
  readFile?: (path: string) => string
}

export interface ParsedCommand<T extends CommandOp> {
  op: T
  input: Record<string, unknown>
}

/**
 * argv = [op, ...args]. `--field value`, `--field=value`, `--flag` (true), `--no-flag` (false), `--a.b value` (nested),
 * `--json '{...}'` (a whole body, merged first). Values are typed by the operation's input schema (`schemaOf`): strings
 * stay strings, numbers, booleans, arrays and objects are parsed as JSON. A positional argument fills the operation's
 * first required string field.
 */
export function parseCommand<T extends CommandOp>(argv: readonly string[], ops: readonly T[], schemaOf: (op: T) => CommandSchema, options: ParseOptions = {}): ParsedCommand<T> {
  const [word, ...args] = argv
  if (!word) throw new Refusal('invalid_input', 'empty command line: start with an operation name (see /api/v1/ops)')
  const op = findCommand(word, ops)
  const schema = schemaOf(op)
  const properties = schema.properties ?? {}
  let input: Record<string, unknown> = {}
  const positional: string[] = []

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg)
      continue
    }
    let key = arg.slice(2)
    let value: string | undefined
    const eq = key.indexOf('=')
    if (eq >= 0) {
      value = key.slice(eq + 1)
      key = key.slice(0, eq)
    } else if (i + 1 < args.length && !args[i + 1]!.startsWith('--')) {
      value = args[++i]
    }
    if (key === 'json') {
      if (value === undefined) throw new Refusal('invalid_input', '--json needs a JSON object')
      input = { ...parseJsonObject(resolveValue(value, options), '--json'), ...input }
      continue
    }
    let boolean: boolean | undefined
    if (value === undefined) {
      boolean = !key.startsWith('no-')
      if (key.startsWith('no-')) key = key.slice(3)
    }
    const path = key.split('.').map((part) => part.replaceAll('-', '_'))
    const node = nodeAt(properties, path)
    const typed = boolean !== undefined ? boolean : coerce(resolveValue(value!, options), node, key)
    setPath(input, path, typed)
  }

  if (positional.length > 0) {
    const field = (schema.required ?? []).find((name) => properties[name]?.type === 'string')
    if (!field || positional.length > 1) {
      throw new Refusal('invalid_input', `${op.name} takes no positional argument here (${positional.join(' ')}); use --field value`, { op: op.name })
    }
    if (input[field] === undefined) input[field] = resolveValue(positional[0]!, options, true)
  }
  return { op, input }
}

export interface JsonSchemaNode {
  type?: string | string[]
  properties?: Record<string, JsonSchemaNode>
  anyOf?: JsonSchemaNode[]
}

function nodeAt(properties: Record<string, JsonSchemaNode>, path: string[]): JsonSchemaNode | undefined {
  let node: JsonSchemaNode | undefined = { properties }
  for (const part of path) node = node?.properties?.[part] ?? node?.anyOf?.find((n) => n.properties?.[part])?.properties?.[part]
  return node
}

function coerce(raw: string, node: JsonSchemaNode | undefined, key: string): unknown {
  const types = new Set([node?.type, ...(node?.anyOf ?? []).map((n) => n.type)].flat().filter(Boolean))
  if (types.size === 1 && types.has('string')) return raw
  try {
    return parseJsonText(raw)
  } catch (err) {
    if (err instanceof Refusal) throw err
    if (types.has('array')) return raw.split(',').map((s) => s.trim())
    if (types.size > 0 && !types.has('string')) {
      throw new Refusal('invalid_input', `--${key} expects ${[...types].join(' or ')}, got ${JSON.stringify(raw)}`)
    }
    return raw
  }
}

function resolveValue(value: string, options: ParseOptions, positional = false): string {
  const fileRef = value.startsWith('@')
  if (!fileRef && !positional) return value
  if (!options.readFile) {
    if (fileRef) throw new Refusal('invalid_input', `@file values (${value}) are read by the ncm binary; over HTTP send the content itself`)
    return value
  }
  try {
    return options.readFile(fileRef ? value.slice(1) : value)
  } catch (err) {
    if (fileRef) throw err
    return value // a positional that is not a readable file is taken literally
  }
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = parseJsonText(text)
  } catch (err) {
    if (err instanceof Refusal) throw err
    throw new Refusal('invalid_input', `${what} is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Refusal('invalid_input', `${what} must be a JSON object`)
  return parsed as Record<string, unknown>
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown) {
  let node = target
  for (const part of path.slice(0, -1)) {
    if (['__proto__', 'constructor', 'prototype'].includes(part)) throw new Refusal('invalid_input', `invalid flag name ${part}`)
    const next = node[part]
    node = (typeof next === 'object' && next !== null ? next : (node[part] = {})) as Record<string, unknown>
  }
  const last = path[path.length - 1]!
  if (['__proto__', 'constructor', 'prototype'].includes(last)) throw new Refusal('invalid_input', `invalid flag name ${last}`)
  node[last] = value
}
