// An answer schema as a plan for the JSON writer (json-writer.ts), so a large answer is written a part per loop turn
// with the same text the route's fast-json-stringify serializer writes in one call. The plan covers what answers are
// made of (objects, arrays, tuples, records, strings, numbers, booleans, nullable ones); any other schema node (a
// union, a const, a $ref, a date format) is written by fast-json-stringify compiled for that node alone.
import fastJson from 'fast-json-stringify'
import type { z } from 'zod'
import { responseJsonSchema } from './plugins/serializer.js'

type SchemaNode = Record<string, unknown>
type Write = (value: unknown) => string

interface Typed {
  nullable: boolean
  /** fast-json-stringify for this node: values of another type than planned. */
  write: Write
  /** Scalars, tuples and closed objects of flat members: a value's whole text is written at once (one token, not dozens). */
  flat: boolean
}
export type ArrayPlan = Typed & { kind: 'array'; items: NodePlan | null; tuple: NodePlan[] | null }
export interface ObjectPlan extends Typed {
  kind: 'object'
  /** Declared members, required ones first (fast-json-stringify's order). */
  keys: string[]
  members: NodePlan[]
  required: boolean[]
  /** A member's default, written when the value lacks it. */
  defaults: Array<string | undefined>
  declared: Set<string>
  /** Undeclared members: undefined drops them, null writes them as plain JSON, a plan writes them through it. */
  extra: NodePlan | null | undefined
}
/** A discriminated union (zod's oneOf of objects, each with its own const at one key): the branch its key names. */
export interface UnionPlan { kind: 'union'; key: string; branches: Map<unknown, NodePlan>; write: Write }
export type NodePlan =
  | { kind: 'any' }
  | UnionPlan
  | { kind: 'fallback'; write: Write }
  | (Typed & { kind: 'string' | 'number' | 'integer' | 'boolean' | 'null' })
  | ArrayPlan
  | ObjectPlan

export interface ShapeOf { root: NodePlan }

/** Keywords that do not change what fast-json-stringify writes for a node. */
const NOTES = new Set(['description', 'title', '$schema', '$id', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'enum',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems',
  'uniqueItems', 'minProperties', 'maxProperties', 'propertyNames', 'format', 'nullable', 'type', 'properties', 'required',
  'additionalProperties', 'items', 'additionalItems', 'definitions', '$defs'])
/** String formats fast-json-stringify writes its own way (dates from Date objects, unescaped strings). */
const OWN_FORMATS = new Set(['date-time', 'date', 'time', 'unsafe'])
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null'])

const shapes = new WeakMap<z.ZodType, ShapeOf>()

/** The plan of a response schema (built once per schema). */
export function shapeOf(schema: z.ZodType): ShapeOf {
  let shape = shapes.get(schema)
  if (!shape) {
    const root = responseJsonSchema(schema) as SchemaNode
    shape = { root: planOf(root, root) }
    shapes.set(schema, shape)
  }
  return shape
}

/** fast-json-stringify compiled for one node (with the root's definitions, for any $ref in it) on first use. */
function lazyWrite(node: SchemaNode, root: SchemaNode): Write {
  let write: Write | null = null
  return (value) => {
    if (!write) {
      const own = structuredClone(node)
      for (const key of ['definitions', '$defs'] as const) if (root[key] !== undefined && node !== root) own[key] = root[key]
      write = fastJson(own as unknown as Parameters<typeof fastJson>[0]) as Write
    }
    return write(value)
  }
}

function planOf(node: SchemaNode, root: SchemaNode): NodePlan {
  const write = lazyWrite(node, root)
  const fallback: NodePlan = { kind: 'fallback', write }
  const branches = node.oneOf ?? node.anyOf
  if (Array.isArray(branches) && Object.keys(node).every((key) => key === 'oneOf' || key === 'anyOf' || (NOTES.has(key) && key !== 'type'))) {
    return unionPlan(branches, root, write) ?? fallback
  }
  if (Object.keys(node).some((key) => !NOTES.has(key))) return fallback
  let type = node.type
  let nullable = node.nullable === true
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== 'null')
    if (type.length !== 2 || others.length !== 1) return fallback
    type = others[0]
    nullable = true
  }
  if (type === undefined) {
    const plain = ['properties', 'required', 'additionalProperties', 'items', 'additionalItems', 'format', 'nullable'].every((key) => !(key in node))
    return plain ? { kind: 'any' } : fallback
  }
  if (typeof type !== 'string') return fallback
  if (SCALARS.has(type)) {
    if (type === 'string' && OWN_FORMATS.has(node.format as string)) return fallback
    return { kind: type as 'string', nullable, write, flat: true }
  }
  if (type === 'array') return arrayPlan(node, root, nullable, write) ?? fallback
  if (type === 'object') return objectPlan(node, root, nullable, write) ?? fallback
  return fallback
}

function arrayPlan(node: SchemaNode, root: SchemaNode, nullable: boolean, write: Write): ArrayPlan | null {
  const items = node.items
  if (Array.isArray(items)) {
    // Items past a tuple's end are refused by fast-json-stringify unless additionalItems lets them through.
    if (node.additionalItems !== undefined && node.additionalItems !== false) return null
    const tuple = items.map((item: SchemaNode) => planOf(item, root))
    return { kind: 'array', nullable, write, items: null, tuple, flat: tuple.every(isFlat) }
  }
  const itemPlan = items === undefined || items === true ? { kind: 'any' as const } : isNode(items) ? planOf(items, root) : null
  if (!itemPlan) return null
  return { kind: 'array', nullable, write, items: itemPlan.kind === 'any' ? null : itemPlan, tuple: null, flat: false }
}

function objectPlan(node: SchemaNode, root: SchemaNode, nullable: boolean, write: Write): ObjectPlan | null {
  const properties = (node.properties ?? {}) as Record<string, SchemaNode>
  const requiredList = (node.required ?? []) as string[]
  if (requiredList.some((key) => !(key in properties))) return null
  // fast-json-stringify writes required members first, each group in declared order (a stable sort).
  const declared = Object.keys(properties)
  const keys = [...declared.filter((k) => requiredList.includes(k)), ...declared.filter((k) => !requiredList.includes(k))]
  const additional = node.additionalProperties
  let extra: NodePlan | null | undefined
  if (additional === undefined || additional === false) extra = undefined
  else if (additional === true) extra = null
  else if (isNode(additional)) {
    const plan = planOf(additional, root)
    extra = plan.kind === 'any' ? null : plan
  } else return null
  const members = keys.map((k) => planOf(properties[k]!, root))
  return {
    kind: 'object',
    nullable,
    write,
    flat: extra === undefined && members.every(isFlat),
    keys,
    members,
    required: keys.map((k) => requiredList.includes(k)),
    defaults: keys.map((k) => (properties[k]!.default === undefined ? undefined : JSON.stringify(properties[k]!.default))),
    declared: new Set(declared),
    extra,
  }
}

/**
 * fast-json-stringify writes a union through the first branch the value validates against; for objects told apart by
 * a const member that is the branch the member names, found without validating the value (so members the branch
 * does not declare are dropped here, where the serializer's validation would refuse the whole value).
 */
function unionPlan(branches: unknown[], root: SchemaNode, write: Write): UnionPlan | null {
  if (branches.length < 2 || !branches.every((b) => isNode(b) && b.type === 'object' && isNode(b.properties))) return null
  const objects = branches as Array<SchemaNode & { properties: Record<string, SchemaNode>; required?: string[] }>
  const key = Object.keys(objects[0]!.properties).find((k) =>
    objects.every((b) => isNode(b.properties[k]) && b.properties[k]!.const !== undefined && (b.required ?? []).includes(k)))
  if (key === undefined) return null
  const map = new Map<unknown, NodePlan>()
  for (const branch of objects) map.set(branch.properties[key]!.const, planOf(branch, root))
  if (map.size !== objects.length) return null
  return { kind: 'union', key, branches: map, write }
}

export const isFlat = (plan: NodePlan): boolean => 'flat' in plan && plan.flat

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value)
