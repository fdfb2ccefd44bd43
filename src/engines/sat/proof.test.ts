// Every proof the solver writes is accepted by the service's independent checker, on random and structured UNSAT
// formulas; the same proofs corrupted (a lemma removed, a literal flipped, a hint wrong) are rejected.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { REPO_ROOT } from '../../version.js'
import { checkProof } from '../proof-check/index.js'
import { CdclSolver, type SolveOutcome } from './cdcl.js'
import { cnfFromClauses, type Cnf } from './cnf.js'
import { parseDimacs } from './dimacs.js'
import { ProofLog, type ProofFormat } from './proof-log.js'
import { pigeonholeDimacs } from './pigeonhole.js'

const SAT_DIR = join(REPO_ROOT, '..', 'shared', 'data', 'sat')
const FORMATS: ProofFormat[] = ['drat', 'lrat']
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1')
const bytesOf = (proof: string) => new Uint8Array(Buffer.from(proof, 'latin1'))

function solveWithProof(cnf: Cnf, format: ProofFormat, assumptions?: number[]): { outcome: SolveOutcome; proof: string } {
  const log = new ProofLog(format, 1 << 26)
  const outcome = new CdclSolver(cnf, { proof: log, reservedIds: assumptions?.length ?? 0 }).solve(assumptions ? { assumptions } : {})
  return { outcome, proof: text(log.bytes()!) }
}

const verdictOf = (cnf: Cnf, format: ProofFormat, proof: string) => checkProof(format, cnf, bytesOf(proof))

/** Random 3-SAT with a ratio of clauses to variables near the threshold (4.26): about half are UNSAT. */
function random3Sat(vars: number, seed: number, ratio = 4.4): Cnf {
  let state = seed >>> 0 || 1
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0)
  const clauses = Array.from({ length: Math.round(vars * ratio) }, () =>
    Array.from({ length: 3 }, () => (1 + ((next() >>> 8) % vars)) * ((next() >>> 12) & 1 ? 1 : -1)),
  )
  return cnfFromClauses(clauses, vars)
}

const lines = (proof: string) => proof.split('\n').filter((line) => line.length > 0)
const additions = (proof: string) => lines(proof).filter((line) => !/^(\d+ )?d /.test(line))

/** LRAT: drops the first lemma that a later step names as a hint. */
function withoutCitedLemma(proof: string): string | null {
  const all = lines(proof)
  for (let i = 0; i < all.length; i++) {
    const [id, second] = all[i]!.split(' ')
    if (second === 'd') continue
    const cited = all.slice(i + 1).some((line) => {
      const parts = line.split(' ')
      return parts[1] !== 'd' && parts.slice(parts.indexOf('0', 1) + 1, -1).includes(id!)
    })
    if (cited) return [...all.slice(0, i), ...all.slice(i + 1)].join('\n') + '\n'
  }
  return null
}

/**
 * Flips the sign of the first literal of a lemma: LRAT's last one (its hints then meet a satisfied clause), DRAT's first
 * one (answered with the flipped lemma, which a DRAT proof only fails by when it is neither RUP nor RAT).
 */
function withFlippedLiteral(proof: string, format: ProofFormat): { proof: string; lemma: number[] } | null {
  const all = lines(proof)
  const at = format === 'lrat' ? 1 : 0
  const order = format === 'lrat' ? all.map((_, i) => all.length - 1 - i) : all.map((_, i) => i)
  for (const i of order) {
    const parts = all[i]!.split(' ')
    if (parts[at] === 'd' || parts[at] === '0') continue
    parts[at] = String(-Number(parts[at]))
    const lemma = parts.slice(at, parts.indexOf('0', at)).map(Number)
    return { proof: [...all.slice(0, i), parts.join(' '), ...all.slice(i + 1)].join('\n') + '\n', lemma }
  }
  return null
}

/** Unit propagation, naively (a third implementation, for the test only): true when assuming `assumed` meets a conflict. */
function naiveConflict(clauses: number[][], assumed: number[]): boolean {
  const value = new Map<number, boolean>()
  const set = (lit: number) => {
    const current = value.get(Math.abs(lit))
    if (current === undefined) value.set(Math.abs(lit), lit > 0)
    return current === undefined || current === lit > 0
  }
  for (const lit of assumed) if (!set(lit)) return true
  for (let changed = true; changed; ) {
    changed = false
    for (const clause of clauses) {
      const open = [...new Set(clause.filter((lit) => !value.has(Math.abs(lit))))]
      if (clause.some((lit) => value.get(Math.abs(lit)) === lit > 0)) continue
      if (open.length === 0) return true
      if (open.length === 1) {
        set(open[0]!)
        changed = true
      }
    }
  }
  return false
}

const naiveRup = (clauses: number[][], lemma: number[]) => naiveConflict(clauses, lemma.map((lit) => -lit))
const naiveRat = (clauses: number[][], lemma: number[]) =>
  lemma.length > 0 &&
  clauses.filter((clause) => clause.includes(-lemma[0]!)).every((clause) => {
    const resolvent = [...lemma, ...clause.filter((lit) => lit !== -lemma[0]!)]
    return resolvent.some((lit) => resolvent.includes(-lit)) || naiveRup(clauses, resolvent)
  })

/** LRAT: the last lemma's last hint (the clause its chain ends in conflict with) replaced by its first hint. */
function withWrongHint(proof: string): string | null {
  const all = lines(proof)
  for (let i = all.length - 1; i >= 0; i--) {
    const parts = all[i]!.split(' ')
    if (parts[1] === 'd') continue
    const hintsFrom = parts.indexOf('0', 1) + 1
    const hints = parts.slice(hintsFrom, -1)
    if (hints.length < 2) continue
    parts[parts.length - 2] = hints[0]!
    return [...all.slice(0, i), parts.join(' '), ...all.slice(i + 1)].join('\n') + '\n'
  }
  return null
}

/** DRAT: every lemma dropped but the empty clause (rejected whenever unit propagation alone does not refute). */
const onlyEmptyClause = () => '0\n'

/** How many DRAT proofs had a flipped first lemma that is neither RUP nor RAT (so the corruption must be caught). */
let dratFlipsThatMustFail = 0

function expectAcceptedAndCorruptionsRejected(cnf: Cnf, label: string): void {
  for (const format of FORMATS) {
    const { outcome, proof } = solveWithProof(cnf, format)
    expect(outcome.status, label).toBe('UNSAT')
    expect(verdictOf(cnf, format, proof), `${label} ${format}`).toMatchObject({ verdict: 'verified', reason: null })
    const corrupted: Array<[string, string | null]> = []
    const flipped = withFlippedLiteral(proof, format)
    if (format === 'lrat') {
      corrupted.push(['flipped literal', flipped?.proof ?? null], ['removed lemma', withoutCitedLemma(proof)], ['wrong hint', withWrongHint(proof)])
    } else {
      if (outcome.stats.decisions > 0) corrupted.push(['removed lemmas', onlyEmptyClause()])
      const clauses = clausesOf(cnf)
      if (flipped && !naiveRup(clauses, flipped.lemma) && !naiveRat(clauses, flipped.lemma)) {
        dratFlipsThatMustFail++
        corrupted.push(['flipped literal', flipped.proof])
      }
    }
    for (const [what, bad] of corrupted) {
      if (bad === null) continue
      expect(verdictOf(cnf, format, bad).verdict, `${label} ${format} with a ${what}`).toBe('rejected')
    }
  }
}

describe('proofs of UNSAT answers', () => {
  it('are accepted on pigeonhole formulas, and rejected once corrupted', () => {
    for (let holes = 2; holes <= 6; holes++) expectAcceptedAndCorruptionsRejected(parseDimacs(pigeonholeDimacs(holes)).cnf, `PHP ${holes}`)
  })

  it('are accepted on random 3-SAT near the threshold, and rejected once corrupted', () => {
    let unsat = 0
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 60 }), fc.integer(), (vars, seed) => {
        const cnf = random3Sat(vars, seed)
        if (new CdclSolver(cnf).solve().status !== 'UNSAT') return
        unsat++
        expectAcceptedAndCorruptionsRejected(cnf, `random ${vars} vars, seed ${seed}`)
      }),
      { numRuns: 120, seed: 26 },
    )
    expect(unsat).toBeGreaterThan(20)
    expect(dratFlipsThatMustFail).toBeGreaterThan(10)
  })

  it('are accepted on small random formulas of every clause length (units, duplicates and tautologies included)', () => {
    const cnfArb = fc.integer({ min: 1, max: 10 }).chain((vars) =>
      fc.array(fc.array(fc.integer({ min: 1, max: vars }).chain((v) => fc.constantFrom(v, -v)), { maxLength: 5 }), { maxLength: 60 })
        .map((clauses) => cnfFromClauses(clauses, vars)),
    )
    fc.assert(
      fc.property(cnfArb, (cnf) => {
        for (const format of FORMATS) {
          const { outcome, proof } = solveWithProof(cnf, format)
          if (outcome.status === 'UNSAT') expect(verdictOf(cnf, format, proof), format).toMatchObject({ verdict: 'verified' })
        }
      }),
      { numRuns: 1500, seed: 2026 },
    )
  })

  it('under assumptions refute the formula with the core appended as unit clauses, in the order of the core', () => {
    let cores = 0
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 40 }), fc.integer(), fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 1, maxLength: 12 }), (vars, seed, raw) => {
        const cnf = random3Sat(vars, seed, 3.6)
        const assumptions = raw.map((lit) => (lit === 0 ? 1 : Math.sign(lit) * (1 + ((Math.abs(lit) - 1) % vars))))
        for (const format of FORMATS) {
          const { outcome, proof } = solveWithProof(cnf, format, assumptions)
          if (outcome.status !== 'UNSAT') continue
          cores++
          const core = outcome.core!
          for (const lit of core) expect(assumptions).toContain(lit)
          const withCore = cnfFromClauses([...clausesOf(cnf), ...core.map((lit) => [lit])], vars)
          expect(new CdclSolver(withCore).solve().status).toBe('UNSAT')
          expect(verdictOf(withCore, format, proof), format).toMatchObject({ verdict: 'verified' })
        }
      }),
      { numRuns: 300, seed: 11 },
    )
    expect(cores).toBeGreaterThan(50)
  })

  it('stop being checked at the deadline: the verdict is incomplete, not a rejection', () => {
    const cnf = parseDimacs(pigeonholeDimacs(5)).cnf
    for (const format of FORMATS) {
      const { proof } = solveWithProof(cnf, format)
      const result = checkProof(format, cnf, bytesOf(proof), { deadline: 0, now: () => 1 })
      expect(result).toMatchObject({ verdict: 'incomplete', steps_checked: 0 })
    }
  })
})

function clausesOf(cnf: Cnf): number[][] {
  return Array.from({ length: cnf.starts.length - 1 }, (_, c) => Array.from(cnf.lits.subarray(cnf.starts[c], cnf.starts[c + 1])))
}

describe.skipIf(!existsSync(join(SAT_DIR, 'manifest.tsv')))('proofs on the SATLIB UNSAT set (needs ../shared/data/sat)', () => {
  const rows = existsSync(join(SAT_DIR, 'manifest.tsv'))
    ? readFileSync(join(SAT_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1).map((row) => row.split('\t')).filter((row) => row[3] === 'UNSAT')
    : []
  it.each(rows.map((row) => [row[0]!]))('%s: accepted, and rejected once corrupted', (file) => {
    expectAcceptedAndCorruptionsRejected(parseDimacs(readFileSync(join(SAT_DIR, file), 'utf8')).cnf, file)
  })
})

it('counts steps as lines and keeps the steps of a proof that fits', () => {
  const cnf = cnfFromClauses([[1, 2], [-1, 2], [1, -2], [-1, -2]])
  for (const format of FORMATS) {
    const log = new ProofLog(format, 1 << 20)
    expect(new CdclSolver(cnf, { proof: log }).solve().status).toBe('UNSAT')
    expect(additions(text(log.bytes()!)).at(-1)).toMatch(format === 'lrat' ? /^\d+ 0( \d+)+ 0$/ : /^0$/)
    expect(lines(text(log.bytes()!))).toHaveLength(log.steps)
  }
})

it('drops a proof that grows past its byte limit instead of writing part of it', () => {
  const log = new ProofLog('drat', 256)
  expect(new CdclSolver(parseDimacs(pigeonholeDimacs(5)).cnf, { proof: log }).solve().status).toBe('UNSAT')
  expect(log.overflowed).toBe(true)
  expect(log.bytes()).toBeNull()
})
