// The JSON boolean formula language of /jsonsat and /quiz: parsed with an explicit stack (no recursion, any depth)
// into flat typed arrays in post-order, then evaluated the same way.

export const Kind = {
  Var: 0,
  Not: 1,
  And: 2,
  Or: 3,
  Implies: 4,
  Iff: 5,
  Xor: 6,
  AtMost: 7,
  AtLeast: 8,
  Exactly: 9,
  True: 10,
  False: 11,
} as const
export type Kind = (typeof Kind)[keyof typeof Kind]

export const OPERATORS = ['var', 'not', 'and', 'or', 'implies', 'iff', 'xor', 'atMost', 'atLeast', 'exactly'] as const

/** Nodes in post-order (children before parents); the root is the last node. */
export interface FlatFormula {
  kind: Uint8Array
  /** Var: index into `names`; cardinality: k; otherwise 0. */
  arg: Int32Array
  /** Children of node i: `children[childStart[i]] … children[childStart[i + 1] - 1]`. */
  childStart: Int32Array
  children: Int32Array
  /** Variable names in order of first appearance. */
  names: string[]
  /** Cells of the cardinality counters the encoding will need (n × width, summed): a size measure for limits. */
  counterCells: number
}

export interface FormulaLimits {
  maxNodes: number
  maxVars: number
  maxNameLength: number
  maxCounterCells: number
}

export interface FormulaIssue {
  path: string
  message: string
}

export class FormulaSyntaxError extends Error {
  override name = 'FormulaSyntaxError'
  constructor(readonly issues: FormulaIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join('; '))
  }
}

export class FormulaLimitError extends Error {
  override name = 'FormulaLimitError'
  constructor(
    readonly limit: keyof FormulaLimits,
    readonly value: number,
    message: string,
  ) {
    super(message)
  }
}

export const DEFAULT_FORMULA_LIMITS: FormulaLimits = {
  maxNodes: 2_000_000,
  maxVars: 1_000_000,
  maxNameLength: 256,
  maxCounterCells: 10_000_000,
}

const MAX_ISSUES = 20

interface Frame {
  kind: Kind
  arg: number
  items: readonly unknown[]
  next: number
  childIds: number[]
  /** The index of this frame's value among its parent's items (paths are only spelled out for errors). */
  reachedAt: number
  /** How each item is reached from this frame's own value, e.g. `.and` (then `[i]`) or `.not`. */
  itemPrefix: string
  indexed: boolean
}

const ITEM_PREFIX: Record<string, string> = {
  and: '.and', or: '.or', xor: '.xor', implies: '.implies', iff: '.iff', atMost: '.atMost.of', atLeast: '.atLeast.of', exactly: '.exactly.of',
}

/** Parses a JSON value (already JSON.parse'd) into a FlatFormula; throws FormulaSyntaxError or FormulaLimitError. */
export function parseFormula(value: unknown, limits: FormulaLimits = DEFAULT_FORMULA_LIMITS, root = 'formula'): FlatFormula {
  const kinds: number[] = []
  const args: number[] = []
  const childStart: number[] = []
  const children: number[] = []
  const names: string[] = []
  const nameIndex = new Map<string, number>()
  const issues: FormulaIssue[] = []
  const stack: Frame[] = []
  let counterCells = 0

  const itemSegment = (frame: Frame, index: number): string => (frame.indexed ? `${frame.itemPrefix}[${index}]` : frame.itemPrefix)
  /** The path of the value being opened (item `index` of the top frame, or the root) plus `suffix`. */
  const pathHere = (index: number, suffix: string): string => {
    let path = root
    for (let depth = 1; depth < stack.length; depth++) path += itemSegment(stack[depth - 1]!, stack[depth]!.reachedAt)
    if (stack.length > 0) path += itemSegment(stack[stack.length - 1]!, index)
    return path + suffix
  }
  const issue = (index: number, suffix: string, message: string): void => {
    issues.push({ path: pathHere(index, suffix), message })
    if (issues.length >= MAX_ISSUES) throw new FormulaSyntaxError(issues)
  }
  const emit = (kind: Kind, arg: number, childIds: readonly number[] | null): number => {
    if (kinds.length >= limits.maxNodes) {
      throw new FormulaLimitError('maxNodes', limits.maxNodes, `the formula has more than ${limits.maxNodes} nodes (limit maxNodes = ${limits.maxNodes})`)
    }
    kinds.push(kind)
    args.push(arg)
    childStart.push(children.length)
    if (childIds) for (const id of childIds) children.push(id)
    return kinds.length - 1
  }
  const push = (kind: Kind, arg: number, items: readonly unknown[], reachedAt: number, itemPrefix: string, indexed: boolean): null => {
    stack.push({ kind, arg, items, next: 0, childIds: [], reachedAt, itemPrefix, indexed })
    return null
  }
  /** A leaf becomes a node at once; an operator becomes a frame whose items are visited next. Returns a node id or null. */
  const open = (node: unknown, index: number): number | null => {
    if (node === true) return emit(Kind.True, 0, null)
    if (node === false) return emit(Kind.False, 0, null)
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      issue(index, '', `expected a formula (an object such as {"var": "x"}, or true/false), got ${describe(node)}`)
      return emit(Kind.False, 0, null)
    }
    let key = ''
    let keyCount = 0
    for (const k in node) {
      if (keyCount++ === 0) key = k
    }
    if (keyCount !== 1) {
      const keys = Object.keys(node)
      issue(index, '', keys.length === 0 ? 'an empty object is not a formula' : `a formula object has exactly one operator key; got ${keys.map((k) => `'${k}'`).join(', ')}`)
      return emit(Kind.False, 0, null)
    }
    const body = (node as Record<string, unknown>)[key]
    switch (key) {
      case 'var':
        return emit(Kind.Var, variable(body, index), null)
      case 'not':
        return push(Kind.Not, 0, [body], index, '.not', false)
      case 'and':
      case 'or':
      case 'xor':
        if (!Array.isArray(body)) {
          issue(index, `.${key}`, `'${key}' takes an array of formulas, got ${describe(body)}`)
          return emit(Kind.False, 0, null)
        }
        return push(key === 'and' ? Kind.And : key === 'or' ? Kind.Or : Kind.Xor, 0, body, index, ITEM_PREFIX[key]!, true)
      case 'implies':
      case 'iff':
        if (!Array.isArray(body) || body.length !== 2) {
          issue(index, `.${key}`, `'${key}' takes an array of exactly two formulas, got ${describe(body)}`)
          return emit(Kind.False, 0, null)
        }
        return push(key === 'implies' ? Kind.Implies : Kind.Iff, 0, body, index, ITEM_PREFIX[key]!, true)
      case 'atMost':
      case 'atLeast':
      case 'exactly':
        return cardinality(key, body, index)
      default:
        issue(index, `.${key}`, `unknown operator '${key}'; expected one of ${OPERATORS.join(', ')}`)
        return emit(Kind.False, 0, null)
    }
  }
  const cardinality = (key: 'atMost' | 'atLeast' | 'exactly', body: unknown, index: number): number | null => {
    const here = `.${key}`
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      issue(index, here, `'${key}' takes {"k": <integer ≥ 0>, "of": [formulas]}, got ${describe(body)}`)
      return emit(Kind.False, 0, null)
    }
    const { k, of, ...rest } = body as Record<string, unknown>
    const extra = Object.keys(rest)
    if (extra.length > 0) issue(index, `${here}.${extra[0]}`, `unknown field '${extra[0]}'; '${key}' takes only k and of`)
    if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0) {
      issue(index, `${here}.k`, `k must be an integer ≥ 0, got ${describe(k)}`)
      return emit(Kind.False, 0, null)
    }
    if (!Array.isArray(of)) {
      issue(index, `${here}.of`, `'of' must be an array of formulas, got ${describe(of)}`)
      return emit(Kind.False, 0, null)
    }
    const n = of.length
    const lower = key === 'atMost' ? k + 1 : k
    const width = Math.max(0, Math.min(lower + 1, n - lower + 2, n))
    counterCells += n * width
    if (counterCells > limits.maxCounterCells) {
      throw new FormulaLimitError('maxCounterCells', limits.maxCounterCells, `the cardinality constraints need more than ${limits.maxCounterCells} counter cells (n × min(k, n − k) summed; limit maxCounterCells = ${limits.maxCounterCells})`)
    }
    const kind = key === 'atMost' ? Kind.AtMost : key === 'atLeast' ? Kind.AtLeast : Kind.Exactly
    return push(kind, k, of, index, ITEM_PREFIX[key]!, true)
  }
  const variable = (name: unknown, index: number): number => {
    if (typeof name !== 'string' || name.length === 0) {
      issue(index, '.var', `a variable name is a non-empty string, got ${describe(name)}`)
      return 0
    }
    if (name.length > limits.maxNameLength) {
      issue(index, '.var', `the variable name is ${name.length} characters long; at most ${limits.maxNameLength} are allowed`)
      return 0
    }
    let at = nameIndex.get(name)
    if (at === undefined) {
      if (names.length >= limits.maxVars) {
        throw new FormulaLimitError('maxVars', limits.maxVars, `the formula names more than ${limits.maxVars} variables (limit maxVars = ${limits.maxVars})`)
      }
      at = names.length
      names.push(name)
      nameIndex.set(name, at)
    }
    return at
  }

  open(value, 0)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next < frame.items.length) {
      const at = frame.next++
      const id = open(frame.items[at], at)
      if (id !== null) frame.childIds.push(id)
      continue
    }
    stack.pop()
    const id = emit(frame.kind, frame.arg, frame.childIds)
    stack[stack.length - 1]?.childIds.push(id)
  }
  if (issues.length > 0) throw new FormulaSyntaxError(issues)
  childStart.push(children.length)
  return {
    kind: Uint8Array.from(kinds),
    arg: Int32Array.from(args),
    childStart: Int32Array.from(childStart),
    children: Int32Array.from(children),
    names,
    counterCells,
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value)}`
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}

export const nodeCount = (f: FlatFormula): number => f.kind.length

/**
 * Evaluates every node under a partial assignment (values[nameIndex] = 1 true, -1 false, 0 unknown) with Kleene's
 * three-valued logic; returns the per-node values (1, -1 or 0). The root's value is the last entry.
 */
export function evaluateFormula(f: FlatFormula, values: Int8Array): Int8Array {
  const n = f.kind.length
  const out = new Int8Array(n)
  const { kind, arg, childStart, children } = f
  for (let i = 0; i < n; i++) {
    const from = childStart[i]!
    const to = childStart[i + 1]!
    switch (kind[i]) {
      case Kind.Var:
        out[i] = values[arg[i]!]!
        break
      case Kind.True:
        out[i] = 1
        break
      case Kind.False:
        out[i] = -1
        break
      case Kind.Not:
        out[i] = -out[children[from]!]!
        break
      case Kind.And: {
        let value = 1
        for (let c = from; c < to && value !== -1; c++) value = Math.min(value, out[children[c]!]!)
        out[i] = value
        break
      }
      case Kind.Or: {
        let value = -1
        for (let c = from; c < to && value !== 1; c++) value = Math.max(value, out[children[c]!]!)
        out[i] = value
        break
      }
      case Kind.Implies:
        out[i] = Math.max(-out[children[from]!]!, out[children[from + 1]!]!)
        break
      case Kind.Iff:
        out[i] = out[children[from]!]! * out[children[from + 1]!]!
        break
      case Kind.Xor: {
        let value = -1
        for (let c = from; c < to && value !== 0; c++) value = -value * out[children[c]!]!
        out[i] = value
        break
      }
      default: {
        let trues = 0
        let unknowns = 0
        for (let c = from; c < to; c++) {
          const v = out[children[c]!]!
          if (v === 1) trues++
          else if (v === 0) unknowns++
        }
        const k = arg[i]!
        const atLeast = trues >= k ? 1 : trues + unknowns < k ? -1 : 0
        const atMost = trues + unknowns <= k ? 1 : trues > k ? -1 : 0
        out[i] = kind[i] === Kind.AtLeast ? atLeast : kind[i] === Kind.AtMost ? atMost : Math.min(atLeast, atMost)
      }
    }
  }
  return out
}
