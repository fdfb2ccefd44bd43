// Checks a proposed assignment against a CNF or a JSON formula: satisfied or not, which clauses fail, what is unassigned.
import type { Cnf } from './cnf.js'
import { evaluateFormula, Kind, type FlatFormula } from './formula.js'

export interface QuizIssue {
  path: string
  message: string
}

export class QuizInputError extends Error {
  override name = 'QuizInputError'
  constructor(readonly issues: QuizIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join('; '))
  }
}

export interface QuizFailure {
  /** 0-based: the clause's position in the input, or the conjunct's position under the formula's top-level and. */
  index: number
  clause: number[] | null
  path: string | null
}

export interface QuizResult {
  /** True when every clause (every part of the formula) is true under the assignment. */
  satisfied: boolean
  /** The formula's value under three-valued logic: null when it depends on unassigned variables. */
  value: boolean | null
  /** Clauses of the CNF, or top-level conjuncts of the formula. */
  parts: number
  falsified_count: number
  falsified: QuizFailure[]
  undetermined_count: number
  unassigned: { count: number; items: Array<number | string> }
  warnings: string[]
}

export type CnfAssignment = Record<string, boolean> | number[]

const MAX_ISSUES = 20

/** Reads `{ "1": true, … }` or a signed literal list into values[v] ∈ {1, -1, 0}. */
export function cnfAssignment(vars: number, assignment: CnfAssignment, path = 'assignment'): Int8Array {
  const values = new Int8Array(vars + 1)
  const issues: QuizIssue[] = []
  const set = (v: number, value: 1 | -1, where: string): void => {
    if (values[v] !== 0 && values[v] !== value) issues.push({ path: where, message: `variable ${v} is given both values` })
    values[v] = value
  }
  if (Array.isArray(assignment)) {
    assignment.forEach((lit, i) => {
      const v = Math.abs(lit)
      if (!Number.isSafeInteger(lit) || lit === 0) issues.push({ path: `${path}[${i}]`, message: `${lit} is not a non-zero integer literal` })
      else if (v > vars) issues.push({ path: `${path}[${i}]`, message: `variable ${v} is above the formula's ${vars} variables` })
      else set(v, lit > 0 ? 1 : -1, `${path}[${i}]`)
    })
  } else {
    for (const [key, value] of Object.entries(assignment)) {
      const v = /^[1-9][0-9]{0,9}$/.test(key) ? Number(key) : Number.NaN
      if (!Number.isSafeInteger(v)) issues.push({ path: `${path}.${key}`, message: `'${key}' is not a variable number (1, 2, …)` })
      else if (v > vars) issues.push({ path: `${path}.${key}`, message: `variable ${v} is above the formula's ${vars} variables` })
      else set(v, value ? 1 : -1, `${path}.${key}`)
    }
  }
  if (issues.length > 0) throw new QuizInputError(issues.slice(0, MAX_ISSUES))
  return values
}

export function quizCnf(cnf: Cnf, values: Int8Array, maxListed: number): QuizResult {
  const { lits, starts, vars } = cnf
  const clauseCount = starts.length - 1
  const falsified: QuizFailure[] = []
  let falsifiedCount = 0
  let undetermined = 0
  const occurs = new Uint8Array(vars + 1)
  for (let c = 0; c < clauseCount; c++) {
    let state = -1 // -1 false so far, 0 some literal unassigned, 1 true
    for (let k = starts[c]!; k < starts[c + 1]!; k++) {
      const lit = lits[k]!
      const v = lit < 0 ? -lit : lit
      occurs[v] = 1
      const value = lit < 0 ? -values[v]! : values[v]!
      if (value > state) state = value
    }
    if (state === -1) {
      falsifiedCount++
      if (falsified.length < maxListed) falsified.push({ index: c, clause: Array.from(lits.subarray(starts[c], starts[c + 1])), path: null })
    } else if (state === 0) undetermined++
  }
  const unassigned: number[] = []
  let unassignedCount = 0
  for (let v = 1; v <= vars; v++) {
    if (occurs[v] && values[v] === 0) {
      unassignedCount++
      if (unassigned.length < maxListed) unassigned.push(v)
    }
  }
  return {
    satisfied: falsifiedCount === 0 && undetermined === 0,
    value: falsifiedCount > 0 ? false : undetermined > 0 ? null : true,
    parts: clauseCount,
    falsified_count: falsifiedCount,
    falsified,
    undetermined_count: undetermined,
    unassigned: { count: unassignedCount, items: unassigned },
    warnings: [],
  }
}

/** Reads names → booleans for a formula; names the formula does not use are reported as warnings, not errors. */
export function formulaAssignment(f: FlatFormula, assignment: Record<string, boolean>): { values: Int8Array; warnings: string[] } {
  const index = new Map(f.names.map((name, i) => [name, i]))
  const values = new Int8Array(f.names.length)
  const stray: string[] = []
  for (const [name, value] of Object.entries(assignment)) {
    const at = index.get(name)
    if (at === undefined) stray.push(name)
    else values[at] = value ? 1 : -1
  }
  const warnings = stray.length > 0
    ? [`the assignment names ${stray.length} variable(s) the formula does not use: ${stray.slice(0, 10).map((s) => JSON.stringify(s)).join(', ')}${stray.length > 10 ? ', …' : ''}`]
    : []
  return { values, warnings }
}

export function quizFormula(f: FlatFormula, values: Int8Array, maxListed: number, root = 'formula'): QuizResult {
  const nodeValues = evaluateFormula(f, values)
  const top = f.kind.length - 1
  const parts: Array<{ node: number; path: string }> = []
  if (f.kind[top] === Kind.And) {
    for (let c = f.childStart[top]!; c < f.childStart[top + 1]!; c++) parts.push({ node: f.children[c]!, path: `${root}.and[${parts.length}]` })
  } else {
    parts.push({ node: top, path: root })
  }
  const falsified: QuizFailure[] = []
  let falsifiedCount = 0
  let undetermined = 0
  parts.forEach((part, index) => {
    const value = nodeValues[part.node]
    if (value === -1) {
      falsifiedCount++
      if (falsified.length < maxListed) falsified.push({ index, clause: null, path: part.path })
    } else if (value === 0) undetermined++
  })
  const unassigned = f.names.filter((_, i) => values[i] === 0)
  const rootValue = nodeValues[top]
  return {
    satisfied: rootValue === 1,
    value: rootValue === 1 ? true : rootValue === -1 ? false : null,
    parts: parts.length,
    falsified_count: falsifiedCount,
    falsified,
    undetermined_count: undetermined,
    unassigned: { count: unassigned.length, items: unassigned.slice(0, maxListed) },
    warnings: [],
  }
}
