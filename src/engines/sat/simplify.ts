// Analysis and simplification of a CNF for /clauses: counts, units, pure literals, tautologies, duplicates, subsumption,
// unit propagation with pure-literal elimination to a fixpoint, and whether that alone decides the formula.
import { IntBuffer, type Cnf } from './cnf.js'
import { firstFalsifiedClause, UnverifiedModelError } from './verify.js'

export interface SimplifyOptions {
  /** Lists (unused variables, units, pure literals, fixed literals) keep at most this many entries. */
  listLimit: number
  /** Literal visits allowed to the subsumption check; beyond it, subsumption stops and says so. */
  subsumptionBudget: number
}

export const DEFAULT_SIMPLIFY_OPTIONS: SimplifyOptions = { listLimit: 100, subsumptionBudget: 50_000_000 }

export interface LimitedList {
  count: number
  /** The first entries, up to the list limit. */
  items: number[]
}

export interface ClauseAnalysis {
  vars: number
  clauses: number
  literals: number
  variables_used: number
  variables_unused: LimitedList
  clause_lengths: Array<{ length: number; count: number }>
  /** In the input as given. */
  unit_literals: LimitedList
  pure_literals: LimitedList
  removed: {
    tautologies: number
    duplicate_literals: number
    duplicate_clauses: number
    satisfied: number
    subsumed: number
  }
  propagation: {
    fixed_by_units: number
    fixed_by_purity: number
    false_literals_removed: number
    rounds: number
  }
  fixed: LimitedList
  subsumption_complete: boolean
  status: 'SAT' | 'UNSAT' | 'UNDECIDED'
  /** When simplification alone found a model: one signed literal per variable, checked against every input clause. */
  model: number[] | null
  simplified: { vars: number; clauses: number; literals: number; dimacs: string }
}

const limited = (items: number[], limit: number): LimitedList => ({ count: items.length, items: items.slice(0, limit) })
const litIndex = (lit: number): number => (lit > 0 ? lit << 1 : (-lit << 1) | 1)

export function analyzeClauses(cnf: Cnf, options: SimplifyOptions = DEFAULT_SIMPLIFY_OPTIONS): ClauseAnalysis {
  const { vars, lits, starts } = cnf
  const clauseCount = starts.length - 1
  const limit = options.listLimit

  // ---- the input as given -----------------------------------------------------------------------------------------
  const occurrences = new Int32Array(2 * vars + 2)
  const lengths = new Map<number, number>()
  const units: number[] = []
  for (let c = 0; c < clauseCount; c++) {
    const from = starts[c]!
    const to = starts[c + 1]!
    lengths.set(to - from, (lengths.get(to - from) ?? 0) + 1)
    if (to - from === 1) units.push(lits[from]!)
    for (let k = from; k < to; k++) occurrences[litIndex(lits[k]!)]!++
  }
  const unused: number[] = []
  const pure: number[] = []
  let used = 0
  for (let v = 1; v <= vars; v++) {
    const pos = occurrences[2 * v]!
    const neg = occurrences[2 * v + 1]!
    if (pos + neg === 0) unused.push(v)
    else {
      used++
      if (neg === 0) pure.push(v)
      else if (pos === 0) pure.push(-v)
    }
  }

  // ---- normalise: duplicate literals, tautologies, duplicate clauses ----------------------------------------------
  const stamp = new Int32Array(2 * vars + 2)
  const body = new IntBuffer(lits.length + 16)
  const bodyStarts = new IntBuffer(clauseCount + 16)
  const distinct = new ClauseTable(clauseCount)
  bodyStarts.push(0)
  let tautologies = 0
  let duplicateLiterals = 0
  let duplicateClauses = 0
  let emptyInInput = false
  for (let c = 0; c < clauseCount; c++) {
    const mark = c + 1
    const start = body.length
    let tautology = false
    for (let k = starts[c]!; k < starts[c + 1]!; k++) {
      const lit = lits[k]!
      const code = litIndex(lit)
      if (stamp[code] === mark) {
        duplicateLiterals++
        continue
      }
      if (stamp[code ^ 1] === mark) tautology = true
      stamp[code] = mark
      body.push(lit)
    }
    if (tautology) {
      tautologies++
      body.length = start
      continue
    }
    if (body.length === start) emptyInInput = true
    sortByVariable(body.data, start, body.length)
    if (!distinct.add(body.data, start, body.length)) {
      duplicateClauses++
      body.length = start
      continue
    }
    bodyStarts.push(body.length)
  }
  const work = new Simplifier(vars, body.toArray(), bodyStarts.toArray())

  // ---- fixpoint: units and pure literals, then subsumption, until nothing changes ---------------------------------
  let rounds = 0
  let subsumptionComplete = true
  let subsumed = 0
  if (emptyInInput) work.conflict = true
  while (!work.conflict && rounds < 64) {
    rounds++
    work.propagateAndPurify()
    if (work.conflict || work.aliveCount === 0) break
    const outcome = work.subsume(options.subsumptionBudget)
    subsumed += outcome.removed
    if (!outcome.complete) subsumptionComplete = false
    if (outcome.removed === 0 || !outcome.complete) break
  }

  const status: ClauseAnalysis['status'] = work.conflict ? 'UNSAT' : work.aliveCount === 0 ? 'SAT' : 'UNDECIDED'
  let model: number[] | null = null
  if (status === 'SAT') {
    const values = new Int8Array(vars + 1)
    for (let v = 1; v <= vars; v++) values[v] = work.value[v] === 1 ? 1 : -1
    const bad = firstFalsifiedClause(cnf, values)
    if (bad >= 0) throw new UnverifiedModelError(`simplification bug: its model falsifies input clause ${bad}`)
    model = Array.from({ length: vars }, (_, i) => values[i + 1]! * (i + 1))
  }
  const remaining = status === 'UNSAT' ? { lits: new Int32Array(0), starts: Int32Array.of(0, 0) } : work.remaining()
  const remainingCount = remaining.starts.length - 1
  const simplifiedCnf: Cnf = { vars, lits: remaining.lits, starts: remaining.starts }

  return {
    vars,
    clauses: clauseCount,
    literals: lits.length,
    variables_used: used,
    variables_unused: limited(unused, limit),
    clause_lengths: [...lengths].sort((a, b) => a[0] - b[0]).map(([length, count]) => ({ length, count })),
    unit_literals: limited(units, limit),
    pure_literals: limited(pure, limit),
    removed: {
      tautologies,
      duplicate_literals: duplicateLiterals,
      duplicate_clauses: duplicateClauses,
      satisfied: work.satisfiedCount,
      subsumed,
    },
    propagation: {
      fixed_by_units: work.fixedByUnits,
      fixed_by_purity: work.fixedByPurity,
      false_literals_removed: work.falseLiteralsRemoved,
      rounds,
    },
    fixed: limited(work.fixed, limit),
    subsumption_complete: subsumptionComplete,
    status,
    model,
    simplified: {
      vars,
      clauses: remainingCount,
      literals: remaining.lits.length,
      dimacs: simplifiedDimacs(simplifiedCnf, status),
    },
  }
}

function simplifiedDimacs(cnf: Cnf, status: ClauseAnalysis['status']): string {
  const clauseCount = cnf.starts.length - 1
  const parts: string[] = [`c simplified by NCM Hub /clauses: ${status}\n`, `p cnf ${cnf.vars} ${clauseCount}\n`]
  for (let c = 0; c < clauseCount; c++) {
    let line = ''
    for (let k = cnf.starts[c]!; k < cnf.starts[c + 1]!; k++) line += `${cnf.lits[k]} `
    parts.push(`${line}0\n`)
  }
  return parts.join('')
}

/** Insertion sort of lits[from..to) by variable: clauses are short, and equal clauses must read the same. */
function sortByVariable(lits: Int32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const lit = lits[i]!
    const key = lit < 0 ? -lit : lit
    let j = i - 1
    while (j >= from && Math.abs(lits[j]!) > key) {
      lits[j + 1] = lits[j]!
      j--
    }
    lits[j + 1] = lit
  }
}

/** An open-addressing set of sorted clauses held in a growing literal buffer (by offset and length, not copies). */
class ClauseTable {
  private readonly slots: Int32Array
  private readonly lengths: Int32Array
  private readonly mask: number

  constructor(expected: number) {
    let size = 16
    while (size < 2 * expected) size *= 2
    this.slots = new Int32Array(size)
    this.lengths = new Int32Array(size)
    this.mask = size - 1
  }

  /** Adds lits[from..to); false when an equal clause is already in the set. */
  add(lits: Int32Array, from: number, to: number): boolean {
    let hash = 0x811c9dc5
    for (let k = from; k < to; k++) hash = Math.imul(hash ^ lits[k]!, 0x01000193)
    let slot = (hash >>> 0) & this.mask
    const length = to - from
    for (;;) {
      const stored = this.slots[slot]!
      if (stored === 0) {
        this.slots[slot] = from + 1
        this.lengths[slot] = length
        return true
      }
      if (this.lengths[slot] === length && sameLiterals(lits, stored - 1, from, length)) return false
      slot = (slot + 1) & this.mask
    }
  }
}

function sameLiterals(lits: Int32Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (lits[a + k] !== lits[b + k]) return false
  return true
}

/** Mutable state of the simplification: clause liveness, a partial assignment and occurrence lists. */
class Simplifier {
  readonly value: Int8Array
  readonly alive: Uint8Array
  aliveCount: number
  conflict = false
  satisfiedCount = 0
  fixedByUnits = 0
  fixedByPurity = 0
  falseLiteralsRemoved = 0
  readonly fixed: number[] = []
  /** Live clauses per literal code (clauses that contain it); stale entries are skipped by `alive`. */
  private readonly occurrenceCount: Int32Array
  private readonly occStart: Int32Array
  private readonly occList: Int32Array
  /** Unassigned literals left in each clause. */
  private readonly open: Int32Array

  constructor(
    private readonly vars: number,
    private readonly lits: Int32Array,
    private readonly starts: Int32Array,
  ) {
    const clauseCount = starts.length - 1
    this.value = new Int8Array(vars + 1)
    this.alive = new Uint8Array(clauseCount).fill(1)
    this.aliveCount = clauseCount
    this.open = new Int32Array(clauseCount)
    this.occurrenceCount = new Int32Array(2 * vars + 2)
    for (let c = 0; c < clauseCount; c++) {
      this.open[c] = starts[c + 1]! - starts[c]!
      for (let k = starts[c]!; k < starts[c + 1]!; k++) this.occurrenceCount[litIndex(lits[k]!)]!++
    }
    this.occStart = new Int32Array(2 * vars + 3)
    for (let code = 0; code < 2 * vars + 2; code++) this.occStart[code + 1] = this.occStart[code]! + this.occurrenceCount[code]!
    const fill = this.occStart.slice(0, 2 * vars + 2)
    this.occList = new Int32Array(lits.length)
    for (let c = 0; c < clauseCount; c++) {
      for (let k = starts[c]!; k < starts[c + 1]!; k++) this.occList[fill[litIndex(lits[k]!)]!++] = c
    }
  }

  private valueOf(lit: number): number {
    const v = this.value[lit < 0 ? -lit : lit]!
    return lit < 0 ? -v : v
  }

  private kill(c: number): void {
    this.alive[c] = 0
    this.aliveCount--
    for (let k = this.starts[c]!; k < this.starts[c + 1]!; k++) this.occurrenceCount[litIndex(this.lits[k]!)]!--
  }

  /** Makes `lit` true: satisfied clauses die, its negation leaves the others (new units go to `queue`); false on conflict. */
  private assign(lit: number, queue: number[]): boolean {
    const v = lit < 0 ? -lit : lit
    this.value[v] = lit < 0 ? -1 : 1
    this.fixed.push(lit)
    const code = litIndex(lit)
    for (let k = this.occStart[code]!; k < this.occStart[code + 1]!; k++) {
      const c = this.occList[k]!
      if (!this.alive[c]) continue
      this.kill(c)
      this.satisfiedCount++
    }
    const negated = code ^ 1
    for (let k = this.occStart[negated]!; k < this.occStart[negated + 1]!; k++) {
      const c = this.occList[k]!
      if (!this.alive[c]) continue
      this.falseLiteralsRemoved++
      const left = --this.open[c]!
      if (left === 0) return false
      if (left === 1) {
        for (let j = this.starts[c]!; j < this.starts[c + 1]!; j++) {
          if (this.valueOf(this.lits[j]!) === 0) {
            queue.push(this.lits[j]!)
            break
          }
        }
      }
    }
    return true
  }

  /** Unit propagation and pure-literal elimination until neither applies. */
  propagateAndPurify(): void {
    const queue: number[] = []
    for (let c = 0; c < this.alive.length; c++) {
      if (!this.alive[c] || this.open[c] !== 1) continue
      for (let j = this.starts[c]!; j < this.starts[c + 1]!; j++) if (this.valueOf(this.lits[j]!) === 0) queue.push(this.lits[j]!)
    }
    for (;;) {
      while (queue.length > 0) {
        const lit = queue.pop()!
        const current = this.valueOf(lit)
        if (current === 1) continue
        if (current === -1) {
          this.conflict = true
          return
        }
        this.fixedByUnits++
        if (!this.assign(lit, queue)) {
          this.conflict = true
          return
        }
      }
      let changed = false
      for (let v = 1; v <= this.vars; v++) {
        if (this.value[v] !== 0) continue
        const pos = this.occurrenceCount[2 * v]!
        const neg = this.occurrenceCount[2 * v + 1]!
        if (pos + neg === 0 || (pos > 0 && neg > 0)) continue
        this.fixedByPurity++
        // A pure literal only satisfies clauses: it can never produce a unit or a conflict.
        this.assign(neg === 0 ? v : -v, queue)
        changed = true
      }
      if (!changed && queue.length === 0) return
    }
  }

  /** Removes live clauses whose unassigned literals include all those of another live clause. */
  subsume(budget: number): { removed: number; complete: boolean } {
    const order: number[] = []
    for (let c = 0; c < this.alive.length; c++) if (this.alive[c]) order.push(c)
    order.sort((a, b) => this.open[a]! - this.open[b]! || a - b)
    const mark = new Uint8Array(2 * this.vars + 2)
    let removed = 0
    let spent = 0
    for (const c of order) {
      if (!this.alive[c]) continue
      let rarest = -1
      let rarestCount = Infinity
      for (let k = this.starts[c]!; k < this.starts[c + 1]!; k++) {
        const lit = this.lits[k]!
        if (this.valueOf(lit) !== 0) continue
        const code = litIndex(lit)
        mark[code] = 1
        const count = this.occurrenceCount[code]!
        if (count < rarestCount) {
          rarestCount = count
          rarest = code
        }
      }
      const size = this.open[c]!
      for (let k = this.occStart[rarest]!; k < this.occStart[rarest + 1]!; k++) {
        const d = this.occList[k]!
        if (d === c || !this.alive[d] || this.open[d]! < size) continue
        let covered = 0
        for (let j = this.starts[d]!; j < this.starts[d + 1]!; j++) {
          spent++
          if (mark[litIndex(this.lits[j]!)] === 1 && this.valueOf(this.lits[j]!) === 0) covered++
        }
        if (covered === size) {
          this.kill(d)
          removed++
        }
      }
      for (let k = this.starts[c]!; k < this.starts[c + 1]!; k++) mark[litIndex(this.lits[k]!)] = 0
      if (spent > budget) return { removed, complete: false }
    }
    return { removed, complete: true }
  }

  /** The live clauses, restricted to their unassigned literals. */
  remaining(): { lits: Int32Array; starts: Int32Array } {
    const out = new IntBuffer(this.lits.length + 16)
    const starts = new IntBuffer(this.aliveCount + 16)
    starts.push(0)
    for (let c = 0; c < this.alive.length; c++) {
      if (!this.alive[c]) continue
      for (let k = this.starts[c]!; k < this.starts[c + 1]!; k++) if (this.valueOf(this.lits[k]!) === 0) out.push(this.lits[k]!)
      starts.push(out.length)
    }
    return { lits: out.toArray(), starts: starts.toArray() }
  }
}
