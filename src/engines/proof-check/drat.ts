// DRAT checking, forward: every added clause must be RUP (unit propagation on the clauses so far, with the clause's
// negation assumed, reaches a conflict) or else RAT on its first literal; the proof is accepted once the empty clause
// follows. Deletions of unit clauses and of clauses that are reasons of top-level facts are ignored, as drat-trim does
// by default (keeping a clause never makes a wrong step pass).
import type { CheckLimits, CheckResult, Formula } from './types.js'
import { DELETE, END, NUMBER, ProofSyntaxError, ProofTokens } from './tokens.js'

const CLOCK_STEPS = 1024
const NONE = -1

export function checkDrat(formula: Formula, proof: Uint8Array, limits: CheckLimits = {}): CheckResult {
  const db = new DratDatabase(formula.vars)
  const count = formula.starts.length - 1
  for (let c = 0; c < count; c++) db.add(Array.from(formula.lits.subarray(formula.starts[c], formula.starts[c + 1])))
  const tokens = new ProofTokens(proof)
  let steps = 0
  const rejected = (reason: string): CheckResult => ({ verdict: 'rejected', steps_checked: steps, reason })
  try {
    for (;;) {
      if (steps % CLOCK_STEPS === 0 && limits.deadline !== undefined && limits.now && limits.now() > limits.deadline) {
        return { verdict: 'incomplete', steps_checked: steps, reason: `the deadline passed after ${steps} proof steps` }
      }
      let token = tokens.next()
      if (token === END) return rejected('the proof ends without deriving the empty clause')
      const line = tokens.line
      const deletion = token === DELETE
      if (deletion) token = tokens.next()
      const clause: number[] = []
      for (; token === NUMBER && tokens.value !== 0; token = tokens.next()) {
        const lit = tokens.value
        if (lit > formula.vars || -lit > formula.vars) return rejected(`line ${line}: literal ${lit} is outside the formula's ${formula.vars} variables`)
        clause.push(lit)
      }
      if (token !== NUMBER) return rejected(`line ${line}: a clause ends with 0`)
      steps++
      if (deletion) {
        if (!db.remove(clause)) return rejected(`line ${line}: deletes a clause that is not there (${clause.join(' ')} 0)`)
        continue
      }
      if (!db.implies(clause) && !db.hasRat(clause)) return rejected(`line ${line}: clause ${clause.join(' ')} 0 is neither RUP nor RAT`)
      if (clause.length === 0) return { verdict: 'verified', steps_checked: steps, reason: null }
      db.add(clause)
    }
  } catch (err) {
    if (err instanceof ProofSyntaxError) return rejected(err.message)
    throw err
  }
}

/** Clauses with two watched literals, a top-level assignment kept propagated, and a hash index for deletions. */
class DratDatabase {
  private arena = new Int32Array(1024)
  private top = 0
  private readonly watches: number[][]
  /** value[code]: 1 true, -1 false, 0 open; code 2v for v, 2v + 1 for ¬v. */
  private readonly value: Int8Array
  private readonly reason: Int32Array
  private readonly trail: Int32Array
  private trailLen = 0
  private qhead = 0
  private readonly byHash = new Map<number, number[]>()
  /** mark[code] === stamp: the literal is in the clause at hand. */
  private readonly mark: Int32Array
  private stamp = 0
  /** The clauses so far are contradictory by unit propagation alone: every clause follows. */
  private refuted = false

  constructor(private readonly vars: number) {
    this.watches = Array.from({ length: 2 * vars + 2 }, () => [])
    this.value = new Int8Array(2 * vars + 2)
    this.reason = new Int32Array(vars + 1).fill(NONE)
    this.trail = new Int32Array(vars + 1)
    this.mark = new Int32Array(2 * vars + 2)
  }

  private nextStamp(): number {
    if (++this.stamp === 0x7fffffff) {
      this.mark.fill(0)
      this.stamp = 1
    }
    return this.stamp
  }

  /** The clause's literal codes without duplicates, or null for a tautology. */
  private normalised(clause: number[]): number[] | null {
    const stamp = this.nextStamp()
    const codes: number[] = []
    for (const lit of clause) {
      const code = codeOf(lit)
      if (this.mark[code ^ 1] === stamp) return null
      if (this.mark[code] === stamp) continue
      this.mark[code] = stamp
      codes.push(code)
    }
    return codes
  }

  /** Stores a clause (literals as given) and propagates any top-level consequence. */
  add(clause: number[]): void {
    const codes = this.normalised(clause)
    if (codes === null || this.refuted) return // a tautology never propagates
    const c = this.store(codes)
    const size = codes.length
    if (size === 0) {
      this.refuted = true
      return
    }
    const arena = this.arena
    // Watch two literals that are not false if there are two; else the open (or true) one and a false one.
    for (let w = 0; w < Math.min(2, size); w++) {
      for (let k = w; k < size; k++) {
        if (this.value[arena[c + 2 + k]!] !== -1) {
          const swap = arena[c + 2 + w]!
          arena[c + 2 + w] = arena[c + 2 + k]!
          arena[c + 2 + k] = swap
          break
        }
      }
    }
    if (size >= 2) {
      this.watches[arena[c + 2]!]!.push(c)
      this.watches[arena[c + 3]!]!.push(c)
    }
    const first = arena[c + 2]!
    if (this.value[first] === -1) this.refuted = true
    else if (this.value[first] === 0 && (size === 1 || this.value[arena[c + 3]!] === -1)) {
      this.assign(first, c)
      if (this.propagate()) this.refuted = true
    }
  }

  /** Removes one stored copy of the clause; false when none is stored. */
  remove(clause: number[]): boolean {
    const codes = this.normalised(clause)
    if (codes === null) return true
    const bucket = this.byHash.get(hashOf(codes))
    const at = bucket?.findIndex((c) => this.sameClause(c, codes)) ?? -1
    if (at < 0) return this.refuted
    const c = bucket![at]!
    const size = this.arena[c]!
    if (size <= 1) return true
    for (let k = 0; k < size; k++) {
      const v = this.arena[c + 2 + k]! >> 1
      if (this.reason[v] === c) return true
    }
    bucket!.splice(at, 1)
    this.arena[c + 1] = 0
    return true
  }

  /** Reverse unit propagation: the clause's negation assumed on top of the top-level facts propagates to a conflict. */
  implies(clause: number[]): boolean {
    if (this.refuted) return true
    const base = this.trailLen
    let conflict = false
    for (const lit of clause) {
      const code = codeOf(lit)
      if (this.value[code] === 1) {
        conflict = true
        break
      }
      if (this.value[code] === 0) this.assign(code ^ 1, NONE)
    }
    if (!conflict) conflict = this.propagate()
    this.undo(base)
    return conflict
  }

  /** RAT on the first literal p: every resolvent with a stored clause holding ¬p is a tautology or RUP. */
  hasRat(clause: number[]): boolean {
    if (clause.length === 0) return false
    const pivot = codeOf(clause[0]!)
    const arena = this.arena
    for (let c = 0; c < this.top; c += 2 + arena[c]!) {
      if (arena[c + 1] === 0) continue
      let holds = false
      for (let k = 0; k < arena[c]!; k++) if (arena[c + 2 + k] === (pivot ^ 1)) holds = true
      if (!holds) continue
      const resolvent = [...clause]
      for (let k = 0; k < arena[c]!; k++) {
        const code = arena[c + 2 + k]!
        if (code !== (pivot ^ 1)) resolvent.push(code & 1 ? -(code >> 1) : code >> 1)
      }
      if (this.normalised(resolvent) !== null && !this.implies(resolvent)) return false
    }
    return true
  }

  private store(codes: number[]): number {
    const need = this.top + 2 + codes.length
    if (need > this.arena.length) {
      const grown = new Int32Array(Math.max(need, this.arena.length * 2))
      grown.set(this.arena.subarray(0, this.top))
      this.arena = grown
    }
    const c = this.top
    this.arena[c] = codes.length
    this.arena[c + 1] = 1 // live
    this.arena.set(codes, c + 2)
    this.top = need
    const hash = hashOf(codes)
    const bucket = this.byHash.get(hash)
    if (bucket) bucket.push(c)
    else this.byHash.set(hash, [c])
    return c
  }

  private sameClause(c: number, codes: number[]): boolean {
    if (this.arena[c] !== codes.length) return false
    const stamp = this.nextStamp()
    for (const code of codes) this.mark[code] = stamp
    for (let k = 0; k < codes.length; k++) if (this.mark[this.arena[c + 2 + k]!] !== stamp) return false
    return true
  }

  private assign(code: number, reason: number): void {
    this.value[code] = 1
    this.value[code ^ 1] = -1
    this.reason[code >> 1] = reason
    this.trail[this.trailLen++] = code
  }

  private undo(base: number): void {
    for (let t = this.trailLen - 1; t >= base; t--) {
      const code = this.trail[t]!
      this.value[code] = 0
      this.value[code ^ 1] = 0
      this.reason[code >> 1] = NONE
    }
    this.trailLen = base
    this.qhead = base
  }

  /** Unit propagation from qhead; true on a conflict. */
  private propagate(): boolean {
    const arena = this.arena
    const value = this.value
    while (this.qhead < this.trailLen) {
      const falseCode = this.trail[this.qhead++]! ^ 1
      const list = this.watches[falseCode]!
      let j = 0
      let conflict = false
      for (let i = 0; i < list.length; i++) {
        const c = list[i]!
        if (conflict || arena[c + 1] === 0) {
          if (arena[c + 1] !== 0) list[j++] = c
          continue
        }
        const lits = c + 2
        if (arena[lits] === falseCode) {
          arena[lits] = arena[lits + 1]!
          arena[lits + 1] = falseCode
        }
        const other = arena[lits]!
        if (value[other] === 1) {
          list[j++] = c
          continue
        }
        let moved = false
        for (let k = 2; k < arena[c]!; k++) {
          const candidate = arena[lits + k]!
          if (value[candidate] !== -1) {
            arena[lits + 1] = candidate
            arena[lits + k] = falseCode
            this.watches[candidate]!.push(c)
            moved = true
            break
          }
        }
        if (moved) continue
        list[j++] = c
        if (value[other] === -1) conflict = true
        else this.assign(other, c)
      }
      list.length = j
      if (conflict) {
        this.qhead = this.trailLen
        return true
      }
    }
    return false
  }
}

const codeOf = (lit: number): number => (lit > 0 ? 2 * lit : -2 * lit + 1)

/** Independent of literal order: DRAT deletions name a clause by its set of literals. */
function hashOf(codes: number[]): number {
  let sum = 0
  let xor = 0
  let product = 1
  for (const code of codes) {
    sum = (sum + code) | 0
    xor ^= Math.imul(code, 0x9e3779b1)
    product = Math.imul(product, (code << 1) | 1)
  }
  return (Math.imul(sum, 31) ^ xor ^ product) >>> 0
}
