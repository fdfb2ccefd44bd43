// Tseitin encoding of a flat formula into CNF: polarity-aware (Plaisted–Greenbaum) definitions, asserted top-level
// and/or without definitions, and sequential counters for cardinality. Variables 1..names.length are the user's names.
import { IntBuffer, type Cnf } from './cnf.js'
import { Kind, type FlatFormula } from './formula.js'

const POS = 1 // the node's variable must imply the node (needed where the node occurs positively)
const NEG = 2 // the node must imply its variable (needed where it occurs negatively)
const BOTH = 3

const flip = (polarity: number): number => ((polarity & POS) << 1) | ((polarity & NEG) >> 1)

export interface TseitinResult {
  cnf: Cnf
  /** Variables 1..namedVars are the formula's names, in order; the rest are auxiliary. */
  namedVars: number
}

export function tseitin(f: FlatFormula): TseitinResult {
  const { kind, arg, childStart, children } = f
  const n = kind.length
  const root = n - 1
  const polarity = new Uint8Array(n)
  const asserted = new Uint8Array(n)
  const assertable = (k: number | undefined): boolean => k === Kind.And || k === Kind.Or || k === Kind.Implies
  polarity[root] = POS
  if (assertable(kind[root])) asserted[root] = 1

  // Parents come after their children, so a reverse scan meets every parent first.
  for (let i = n - 1; i >= 0; i--) {
    const p = polarity[i]!
    const from = childStart[i]!
    const to = childStart[i + 1]!
    const k = kind[i]
    for (let c = from; c < to; c++) {
      const child = children[c]!
      let q: number
      if (k === Kind.Not) q = flip(p)
      else if (k === Kind.And || k === Kind.Or) q = p
      else if (k === Kind.Implies) q = c === from ? flip(p) : p
      else q = BOTH
      polarity[child] = q
      if (asserted[i] && k === Kind.And && assertable(kind[child])) asserted[child] = 1
    }
  }

  const lits = new IntBuffer(4 * n + 16)
  const starts = new IntBuffer(2 * n + 16)
  starts.push(0)
  let vars = f.names.length
  let trueVar = 0
  const clause = (...clauseLits: number[]): void => {
    for (const lit of clauseLits) lits.push(lit)
    starts.push(lits.length)
  }
  const clauseOf = (clauseLits: readonly number[]): void => {
    for (const lit of clauseLits) lits.push(lit)
    starts.push(lits.length)
  }
  const fresh = (): number => ++vars
  const constantTrue = (): number => {
    if (trueVar === 0) {
      trueVar = fresh()
      clause(trueVar)
    }
    return trueVar
  }
  /** t ↔ a ∨ (x ∧ b), or t ↔ a ∨ x when b is null, or t ↔ x ∧ b when a is null. */
  const counterCell = (a: number | null, x: number, b: number | null): number => {
    const t = fresh()
    if (a !== null && b === null) {
      clause(-t, a, x)
      clause(-a, t)
      clause(-x, t)
    } else if (a === null && b !== null) {
      clause(-t, x)
      clause(-t, b)
      clause(-x, -b, t)
    } else if (a !== null && b !== null) {
      clause(-t, a, x)
      clause(-t, a, b)
      clause(-a, t)
      clause(-x, -b, t)
    }
    return t
  }
  /** Sequential counter: out[j - 1] ↔ (at least j of xs are true), for j = 1..m (1 ≤ m ≤ xs.length). */
  const counter = (xs: readonly number[], m: number): number[] => {
    let row: number[] = [xs[0]!]
    for (let i = 2; i <= xs.length; i++) {
      const x = xs[i - 1]!
      const next: number[] = []
      for (let j = 1; j <= Math.min(i, m); j++) {
        const a = j <= row.length ? row[j - 1]! : null
        const b = j === 1 ? null : row[j - 2]!
        next.push(counterCell(a, x, b))
      }
      row = next
    }
    return row
  }
  /** A literal equivalent to (at least k of xs), counting whichever side is smaller. */
  const atLeast = (xs: readonly number[], k: number): number => {
    const count = xs.length
    if (k <= 0) return constantTrue()
    if (k > count) return -constantTrue()
    if (k <= count - k + 1) return counter(xs, k)[k - 1]!
    const m = count - k + 1
    return -counter(xs.map((x) => -x), m)[m - 1]!
  }
  /** A literal for (exactly k of xs): one counter serves both bounds. */
  const exactly = (xs: readonly number[], k: number, p: number): number => {
    const count = xs.length
    if (k > count) return -constantTrue()
    if (count === 0) return constantTrue()
    let lower: number
    let upper: number // (at least k + 1)
    if (k + 1 <= count - k + 1) {
      const out = counter(xs, Math.min(k + 1, count))
      lower = k === 0 ? constantTrue() : out[k - 1]!
      upper = k + 1 <= count ? out[k]! : -constantTrue()
    } else {
      const m = count - k + 1
      const out = counter(xs.map((x) => -x), m)
      lower = -out[m - 1]!
      upper = m - 1 >= 1 ? -out[m - 2]! : -constantTrue()
    }
    return define(Kind.And, [lower, -upper], p)
  }
  /** A fresh variable t with t → op(xs) (POS) and/or op(xs) → t (NEG). */
  const define = (op: typeof Kind.And | typeof Kind.Or, xs: readonly number[], p: number): number => {
    const t = fresh()
    if (op === Kind.And) {
      if (p & POS) for (const x of xs) clause(-t, x)
      if (p & NEG) clauseOf([t, ...xs.map((x) => -x)])
    } else {
      if (p & POS) clauseOf([-t, ...xs])
      if (p & NEG) for (const x of xs) clause(t, -x)
    }
    return t
  }

  const lit = new Int32Array(n)
  const childLits = (i: number): number[] => {
    const out: number[] = []
    for (let c = childStart[i]!; c < childStart[i + 1]!; c++) out.push(lit[children[c]!]!)
    return out
  }
  for (let i = 0; i < n; i++) {
    const p = polarity[i]!
    const k = kind[i]
    switch (k) {
      case Kind.Var:
        lit[i] = arg[i]! + 1
        break
      case Kind.True:
        lit[i] = constantTrue()
        break
      case Kind.False:
        lit[i] = -constantTrue()
        break
      case Kind.Not:
        lit[i] = -lit[children[childStart[i]!]!]!
        break
      case Kind.And:
      case Kind.Or:
      case Kind.Implies: {
        const xs = childLits(i)
        if (k === Kind.Implies) xs[0] = -xs[0]!
        const op = k === Kind.And ? Kind.And : Kind.Or
        if (asserted[i]) {
          // Asserted: an and asserts each child (asserted children assert themselves), an or is one clause.
          if (op === Kind.Or) clauseOf(xs)
          else {
            for (let c = childStart[i]!; c < childStart[i + 1]!; c++) {
              const child = children[c]!
              if (!asserted[child]) clause(lit[child]!)
            }
          }
          break
        }
        if (xs.length === 0) lit[i] = op === Kind.And ? constantTrue() : -constantTrue()
        else if (xs.length === 1) lit[i] = xs[0]!
        else lit[i] = define(op, xs, p)
        break
      }
      case Kind.Iff: {
        const [a, b] = childLits(i) as [number, number]
        const t = fresh()
        if (p & POS) {
          clause(-t, -a, b)
          clause(-t, a, -b)
        }
        if (p & NEG) {
          clause(t, a, b)
          clause(t, -a, -b)
        }
        lit[i] = t
        break
      }
      case Kind.Xor: {
        const xs = childLits(i)
        if (xs.length === 0) {
          lit[i] = -constantTrue()
          break
        }
        let acc = xs[0]!
        for (let c = 1; c < xs.length; c++) {
          const x = xs[c]!
          const t = fresh()
          const q = c === xs.length - 1 ? p : BOTH
          if (q & POS) {
            clause(-t, acc, x)
            clause(-t, -acc, -x)
          }
          if (q & NEG) {
            clause(t, -acc, x)
            clause(t, acc, -x)
          }
          acc = t
        }
        lit[i] = acc
        break
      }
      case Kind.AtLeast:
        lit[i] = atLeast(childLits(i), arg[i]!)
        break
      case Kind.AtMost:
        lit[i] = -atLeast(childLits(i), arg[i]! + 1)
        break
      case Kind.Exactly:
        lit[i] = exactly(childLits(i), arg[i]!, p)
        break
    }
  }
  if (!asserted[root]) clause(lit[root]!)
  return { cnf: { vars, lits: lits.toArray(), starts: starts.toArray() }, namedVars: f.names.length }
}
