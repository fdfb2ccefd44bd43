// RFC 6902 JSON Patch: a diff of two JSON values into add/remove/replace operations, and the apply function for all six.
import { canonicalJson, type JsonValue } from '../digest/canonical-json.js'
import { diffSequences, type SequenceDiffOptions } from './myers.js'
import { ARRAY_INDEX, formatPointer, JsonPointerError, parsePointer } from './json-pointer.js'

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: JsonValue }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: JsonValue }

export class JsonPatchError extends Error {
  override name = 'JsonPatchError'
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message)
  }
}

type JsonObject = { [key: string]: JsonValue }
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false
    return true
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    if (keys.length !== Object.keys(b).length) return false
    for (const key of keys) if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false
    return true
  }
  return false
}

/** Own-property write that treats "__proto__" as a plain key, as JSON does. */
function setKey(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T
  if (isObject(value)) {
    const out: JsonObject = {}
    for (const key of Object.keys(value)) setKey(out, key, cloneJson(value[key]!))
    return out as T
  }
  return value
}

/** Operations that turn `a` into `b`: objects key by key, arrays by a shortest edit script of their elements. */
export function diffJson(a: JsonValue, b: JsonValue, options: SequenceDiffOptions = {}): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = []
  diffInto(a, b, [], ops, options)
  return ops
}

function diffInto(a: JsonValue, b: JsonValue, path: string[], ops: JsonPatchOperation[], options: SequenceDiffOptions): void {
  if (jsonEqual(a, b)) return
  if (isObject(a) && isObject(b)) {
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) ops.push({ op: 'remove', path: formatPointer([...path, key]) })
    }
    for (const key of Object.keys(a)) {
      if (Object.hasOwn(b, key)) diffInto(a[key]!, b[key]!, [...path, key], ops, options)
    }
    for (const key of Object.keys(b)) {
      if (!Object.hasOwn(a, key)) ops.push({ op: 'add', path: formatPointer([...path, key]), value: cloneJson(b[key]!) })
    }
    return
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    diffArrays(a, b, path, ops, options)
    return
  }
  ops.push({ op: 'replace', path: formatPointer(path), value: cloneJson(b) })
}

function diffArrays(a: JsonValue[], b: JsonValue[], path: string[], ops: JsonPatchOperation[], options: SequenceDiffOptions): void {
  const ids = new Map<string, number>()
  const idOf = (v: JsonValue) => {
    const key = canonicalJson(v)
    let id = ids.get(key)
    if (id === undefined) ids.set(key, (id = ids.size))
    return id
  }
  const { changes } = diffSequences(Int32Array.from(a, idOf), Int32Array.from(b, idOf), options)
  // `shift` turns an index of `a` into the index of the same element in the array as patched so far.
  let shift = 0
  for (const change of changes) {
    const removed = change.aEnd - change.aStart
    const added = change.bEnd - change.bStart
    const paired = Math.min(removed, added)
    const at = change.aStart + shift
    for (let p = 0; p < paired; p++) {
      diffInto(a[change.aStart + p]!, b[change.bStart + p]!, [...path, String(at + p)], ops, options)
    }
    for (let r = paired; r < removed; r++) ops.push({ op: 'remove', path: formatPointer([...path, String(at + paired)]) })
    for (let q = paired; q < added; q++) {
      ops.push({ op: 'add', path: formatPointer([...path, String(at + q)]), value: cloneJson(b[change.bStart + q]!) })
    }
    shift += added - removed
  }
}

/**
 * What a patch may produce: every value it writes (add, replace, copy, move) is charged by its weight, counted before
 * it is cloned, on top of the document's own; a patch that would pass `maxWeight` stops with JsonPatchBudgetError.
 * Copy doubles a document per operation, so 30 operations of a 1 KB request would otherwise ask for gigabytes.
 */
export class JsonPatchBudgetError extends Error {
  override name = 'JsonPatchBudgetError'
  constructor(
    readonly index: number,
    readonly maxWeight: number,
  ) {
    super(`the patched document would weigh more than ${maxWeight} (nodes × 8 + characters of strings and keys)`)
  }
}

/** Weight of a JSON value (nodes × 8 + characters of strings and keys), counted iteratively and only up to `cap`. */
export function jsonWeight(value: unknown, cap = Number.POSITIVE_INFINITY): number {
  let weight = 0
  const stack: unknown[] = [value]
  while (stack.length > 0 && weight <= cap) {
    const node = stack.pop()
    weight += 8
    if (typeof node === 'string') weight += node.length
    else if (Array.isArray(node)) for (const child of node) stack.push(child)
    else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        // Past the cap inside a wide object too: a 50k-key document was walked whole to learn it was over 256 Ki.
        if ((weight += key.length) > cap) return weight
        stack.push((node as JsonObject)[key])
      }
    }
  }
  return weight
}

/**
 * Applies `ops` to a copy of `document`; the original is never changed. Throws JsonPatchError naming the operation,
 * or JsonPatchBudgetError when what the patch writes (plus the document) would pass `maxWeight`.
 */
export function applyJsonPatch(
  document: JsonValue,
  ops: readonly JsonPatchOperation[],
  maxWeight = Number.POSITIVE_INFINITY,
): JsonValue {
  let spent = jsonWeight(document, maxWeight)
  if (spent > maxWeight) throw new JsonPatchBudgetError(0, maxWeight)
  const charge = (index: number, value: JsonValue): JsonValue => {
    spent += jsonWeight(value, maxWeight - spent)
    if (spent > maxWeight) throw new JsonPatchBudgetError(index, maxWeight)
    return value
  }
  let doc = cloneJson(document)
  ops.forEach((op, index) => {
    try {
      doc = applyOne(doc, op, (value) => charge(index, value))
    } catch (err) {
      if (err instanceof JsonPatchError || err instanceof JsonPatchBudgetError) throw err
      if (err instanceof JsonPointerError || err instanceof PatchTargetError) throw new JsonPatchError(index, err.message)
      throw err
    }
  })
  return doc
}

class PatchTargetError extends Error {}

/** `charged` is called with each value before it is cloned into the document. */
function applyOne(doc: JsonValue, op: JsonPatchOperation, charged: (value: JsonValue) => JsonValue): JsonValue {
  switch (op.op) {
    case 'add':
      return add(doc, parsePointer(op.path), cloneJson(charged(op.value)), op.path)
    case 'remove':
      return remove(doc, parsePointer(op.path), op.path).doc
    case 'replace': {
      const tokens = parsePointer(op.path)
      resolve(doc, tokens, op.path)
      return add(remove(doc, tokens, op.path).doc, tokens, cloneJson(charged(op.value)), op.path)
    }
    case 'move': {
      const from = parsePointer(op.from)
      const to = parsePointer(op.path)
      if (to.length > from.length && from.every((t, i) => t === to[i])) {
        throw new PatchTargetError(`cannot move ${op.from} into its own child ${op.path}`)
      }
      const taken = remove(doc, from, op.from)
      return add(taken.doc, to, charged(taken.value), op.path)
    }
    case 'copy':
      return add(doc, parsePointer(op.path), cloneJson(charged(resolve(doc, parsePointer(op.from), op.from))), op.path)
    case 'test': {
      const actual = resolve(doc, parsePointer(op.path), op.path)
      // The comparison costs up to the expected value's weight: charged like a write, so 100k tests stay bounded.
      if (!jsonEqual(actual, charged(op.value))) throw new PatchTargetError(`test failed: the value at ${JSON.stringify(op.path)} differs`)
      return doc
    }
  }
}

function resolve(doc: JsonValue, tokens: readonly string[], pointer: string): JsonValue {
  let node = doc
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(token) || Number(token) >= node.length) {
        throw new PatchTargetError(`${JSON.stringify(pointer)}: no element ${JSON.stringify(token)} in an array of ${node.length}`)
      }
      node = node[Number(token)]!
    } else if (isObject(node)) {
      if (!Object.hasOwn(node, token)) throw new PatchTargetError(`${JSON.stringify(pointer)}: no member ${JSON.stringify(token)}`)
      node = node[token]!
    } else {
      throw new PatchTargetError(`${JSON.stringify(pointer)}: cannot step into a ${node === null ? 'null' : typeof node}`)
    }
  }
  return node
}

function add(doc: JsonValue, tokens: readonly string[], value: JsonValue, pointer: string): JsonValue {
  if (tokens.length === 0) return value
  const parent = resolve(doc, tokens.slice(0, -1), pointer)
  const last = tokens[tokens.length - 1]!
  if (Array.isArray(parent)) {
    if (last === '-') parent.push(value)
    else if (ARRAY_INDEX.test(last) && Number(last) <= parent.length) parent.splice(Number(last), 0, value)
    else throw new PatchTargetError(`${JSON.stringify(pointer)}: ${JSON.stringify(last)} is not an index from 0 to ${parent.length} or "-"`)
  } else if (isObject(parent)) {
    setKey(parent, last, value)
  } else {
    throw new PatchTargetError(`${JSON.stringify(pointer)}: the parent is not an object or an array`)
  }
  return doc
}

function remove(doc: JsonValue, tokens: readonly string[], pointer: string): { doc: JsonValue; value: JsonValue } {
  const value = resolve(doc, tokens, pointer)
  if (tokens.length === 0) return { doc: null, value }
  const parent = resolve(doc, tokens.slice(0, -1), pointer)
  const last = tokens[tokens.length - 1]!
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else delete (parent as JsonObject)[last]
  return { doc, value }
}
