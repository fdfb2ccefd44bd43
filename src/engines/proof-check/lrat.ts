// LRAT checking: every added clause must follow by unit propagation over exactly the clauses its hints name, in order;
// the proof is accepted once it adds the empty clause. Linear in the proof's size. RAT hints (negative) are refused.
import { ClauseTable, MAX_CLAUSE_ID } from './clause-table.js'
import type { CheckLimits, CheckResult, Formula } from './types.js'
import { DELETE, END, NUMBER, ProofSyntaxError, ProofTokens } from './tokens.js'

/** Steps between readings of the clock. */
const CLOCK_STEPS = 4096

export function checkLrat(formula: Formula, proof: Uint8Array, limits: CheckLimits = {}): CheckResult {
  const table = ClauseTable.ofFormula(formula)
  const vars = formula.vars
  // truth[code] === stamp: literal code is true in the current check (code 2v for v, 2v + 1 for ¬v).
  const truth = new Int32Array(2 * vars + 2)
  let stamp = 0
  const tokens = new ProofTokens(proof)
  let steps = 0
  let lemma: number[] = []
  const rejected = (reason: string): CheckResult => ({ verdict: 'rejected', steps_checked: steps, reason })
  try {
    for (;;) {
      if (steps % CLOCK_STEPS === 0 && limits.deadline !== undefined && limits.now && limits.now() > limits.deadline) {
        return { verdict: 'incomplete', steps_checked: steps, reason: `the deadline passed after ${steps} proof steps` }
      }
      const first = tokens.next()
      if (first === END) return rejected('the proof ends without deriving the empty clause')
      if (first !== NUMBER || tokens.value <= 0) return rejected(`line ${tokens.line}: a step starts with a positive clause id`)
      const id = tokens.value
      const line = tokens.line
      let token = tokens.next()
      if (token === DELETE) {
        for (let target = tokens.number(); target !== 0; target = tokens.number()) {
          if (!table.delete(target)) return rejected(`line ${line}: deletes clause ${target}, which is not there`)
        }
        steps++
        continue
      }
      lemma = []
      for (; token === NUMBER && tokens.value !== 0; token = tokens.next()) {
        const lit = tokens.value
        if (lit > vars || -lit > vars) return rejected(`line ${line}: literal ${lit} is outside the formula's ${vars} variables`)
        lemma.push(lit)
      }
      if (token !== NUMBER) return rejected(`line ${line}: a clause ends with 0`)
      if (table.has(id)) return rejected(`line ${line}: clause id ${id} is already in use`)
      if (id >= MAX_CLAUSE_ID) return rejected(`line ${line}: clause id ${id} is over ${MAX_CLAUSE_ID}`)
      if (++stamp === 0x7fffffff) {
        truth.fill(0)
        stamp = 1
      }
      let tautology = false
      for (const lit of lemma) {
        const code = lit > 0 ? 2 * lit + 1 : -2 * lit // the negation of lit is assumed true
        if (truth[code ^ 1] === stamp) tautology = true
        truth[code] = stamp
      }
      let conflict = false
      for (let hint = tokens.number(); hint !== 0; hint = tokens.number()) {
        if (conflict || tautology) continue
        if (hint < 0) return rejected(`line ${line}: RAT hints are not checked here (clause ${id})`)
        const clause = table.get(hint)
        if (!clause) return rejected(`line ${line}: hint ${hint} names no clause`)
        let open = -1
        let satisfied = false
        for (let k = clause.from; k < clause.to; k++) {
          const lit: number = clause.lits[k]!
          const code = lit > 0 ? 2 * lit : -2 * lit + 1
          if (truth[code ^ 1] === stamp) continue
          if (truth[code] === stamp) satisfied = true
          else if (open >= 0 && open !== code) return rejected(`line ${line}: hint ${hint} is not unit for clause ${id}`)
          else open = code
        }
        if (satisfied) return rejected(`line ${line}: hint ${hint} is already satisfied for clause ${id}`)
        if (open < 0) conflict = true
        else truth[open] = stamp
      }
      if (!conflict && !tautology) return rejected(`line ${line}: the hints of clause ${id} reach no conflict`)
      table.add(id, lemma)
      steps++
      if (lemma.length === 0) return { verdict: 'verified', steps_checked: steps, reason: null }
    }
  } catch (err) {
    if (err instanceof ProofSyntaxError) return rejected(err.message)
    throw err
  }
}
