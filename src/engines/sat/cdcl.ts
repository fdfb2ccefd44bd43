// A CDCL SAT solver over typed arrays: watched literals with blockers, 1UIP learning with recursive minimisation,
// EVSIDS on a binary heap, phase saving, focused/stable restarts and learned-clause reduction by LBD; MiniSat-style
// assumptions with failed-assumption cores, hard budgets, and an optional DRAT or LRAT proof of every clause it adds.
import type { Cnf } from './cnf.js'
import type { ProofLog } from './proof-log.js'
import { RestartPolicy } from './restarts.js'
import { VarOrder } from './var-order.js'
import { WatchLists } from './watch-lists.js'

export type SatStatus = 'SAT' | 'UNSAT' | 'UNKNOWN'

export interface SolverStats {
  decisions: number
  conflicts: number
  propagations: number
  restarts: number
  learned: number
}

/** What stopped a search early (status UNKNOWN): a budget reached, the deadline, or the caller's cancellation. */
export type StopReason = 'conflicts' | 'decisions' | 'propagations' | 'deadline' | 'cancelled'

export interface SolverOptions {
  /** Where every lemma, deletion and load-time simplification is written (DRAT or LRAT); none by default. */
  proof?: ProofLog
  /**
   * Clause ids kept free after the input's (LRAT): a refutation under assumptions is checked against the formula with
   * its core appended as unit clauses, numbered from clauses + 1 in the order of the core.
   */
  reservedIds?: number
}

export interface SolveOptions {
  /** Epoch ms after which the search stops with UNKNOWN; needs `now`. */
  deadline?: number
  /** The clock the deadline is read from (engines take no clock of their own). */
  now?: () => number
  /** Budgets on the solver's counters (cumulative over solve calls): the search stops when one is reached. */
  maxConflicts?: number
  maxDecisions?: number
  maxPropagations?: number
  /** DIMACS literals taken as the first decisions; an UNSAT answer under them names a failed subset (core). */
  assumptions?: ArrayLike<number>
  /** Called with the counters at the clock's cadence (about every millisecond of search); optional. */
  onProgress?: (stats: Readonly<SolverStats>) => void
  /** Polled at the same cadence: true stops the search with UNKNOWN (stoppedBy 'cancelled'). */
  shouldStop?: () => boolean
}

export interface SolveOutcome {
  status: SatStatus
  /** For SAT: model[v] is 1 (true) or -1 (false) for v in 1..vars; index 0 unused. Null otherwise. */
  model: Int8Array | null
  stats: SolverStats
  /** Why the search stopped early, for UNKNOWN. */
  stoppedBy: StopReason | null
  /**
   * UNSAT under assumptions: assumptions (as given) that the formula already contradicts ([] when the formula alone is
   * UNSAT); null without assumptions or for SAT/UNKNOWN.
   */
  core: number[] | null
}

// Literal code: 2v for v, 2v + 1 for ¬v; `lit ^ 1` negates, `lit >> 1` is the variable.
const NO_REASON = -1
/** propagate() stopped at the propagation budget, not at a conflict. */
const OUT_OF_PROPAGATIONS = -2
/** propagate() stopped because the clock check said stop (deadline or cancellation), not at a conflict. */
const OUT_OF_TIME = -3
/** A clause in the arena: size, meta (flags and LBD), id (its number in the proof), then its literals. */
const HEADER = 3
const META_LEARNT = 1
const META_DELETED = 2
const META_USED = 4
const LBD_SHIFT = 3
const CORE_LBD = 2

const VAR_DECAY = 0.95
const FIRST_REDUCE = 1000
const REDUCE_INCREMENT = 100
/** Learned clauses up to this LBD survive a reduction when they took part in a conflict since the last one. */
const TIER2_LBD = 6
/** Share of the reducible learned clauses (the worst by LBD) deleted at each reduction. */
const REDUCE_FRACTION = 0.75
/**
 * The clock is read once this much work has been done since the last reading: propagations, 16 per conflict, and the
 * literals the watch search walked over (on a clause of 100,000 literals one propagation may walk them all).
 */
const CLOCK_WORK_INTERVAL = 20_000

const toCode = (lit: number): number => (lit > 0 ? lit << 1 : (-lit << 1) | 1)

/**
 * Starting activities, all far below one bump: variables that occur more often first, then lower numbers first.
 * Structured encodings number related variables together, and with all-equal activities the heap's arbitrary order
 * made dubois and pret instances take 5–8 times more conflicts.
 */
function initialActivity(cnf: Cnf): Float64Array {
  const n = cnf.vars
  const score = new Float64Array(n + 1)
  for (let k = 0; k < cnf.lits.length; k++) {
    const lit = cnf.lits[k]!
    const v = lit < 0 ? -lit : lit
    if (v <= n) score[v]! += 1
  }
  let top = 0
  for (let v = 1; v <= n; v++) {
    score[v]! += (n - v) / (n + 1)
    if (score[v]! > top) top = score[v]!
  }
  const scale = 1e-3 / (top + 1)
  for (let v = 1; v <= n; v++) score[v]! *= scale
  return score
}

export function solveCnf(cnf: Cnf, options: SolveOptions = {}): SolveOutcome {
  return new CdclSolver(cnf).solve(options)
}

const dimacsOf = (code: number): number => (code & 1 ? -(code >> 1) : code >> 1)

export class CdclSolver {
  private readonly nVars: number
  private arena: Int32Array
  private arenaTop = 0
  private wasted = 0
  private learnts: Int32Array = new Int32Array(256)
  private learntCount = 0

  private readonly watches: WatchLists
  private readonly value: Int8Array
  private readonly level: Int32Array
  private readonly reason: Int32Array
  private readonly trail: Int32Array
  private trailLen = 0
  private qhead = 0
  private trailLim: Int32Array
  private decisionLevel = 0
  private propagationLimit = Number.POSITIVE_INFINITY
  /** Literals the watch search has walked over: work that the propagation count does not see. */
  private scanned = 0
  /** Reads the clock (and cancellation), set by each solve; true means stop. */
  private timeIsUp: (() => boolean) | null = null

  private readonly order: VarOrder
  private readonly polarity: Uint8Array

  private readonly seen: Uint8Array
  private readonly learnt: Int32Array
  private learntLen = 0
  private toClear: Int32Array
  private toClearLen = 0
  private minimizeStack: Int32Array
  private levelStamp: Int32Array
  private stampCounter = 0

  private readonly restarts = new RestartPolicy()
  private nextReduce = FIRST_REDUCE
  private reductions = 0

  private unsat = false
  private readonly stats: SolverStats = { decisions: 0, conflicts: 0, propagations: 0, restarts: 0, learned: 0 }

  private readonly proof: ProofLog | null
  private readonly lrat: LratChains | null
  /** The id the next clause gets: input clauses are 1…clauses in order, then the reserved ids, then lemmas. */
  private nextId: number
  private readonly inputClauses: number
  /** addClause's duplicate and tautology marks, per literal code (allocated on first use). */
  private addedMark: Int32Array | null = null
  private addedStamp = 0
  /** LRAT: trail entries (all level 0) whose unit lemmas are written. */
  private unitsLogged = 0

  constructor(cnf: Cnf, options: SolverOptions = {}) {
    const n = cnf.vars
    this.nVars = n
    const litCount = 2 * n + 2
    this.proof = options.proof ?? null
    this.inputClauses = cnf.starts.length - 1
    this.nextId = this.inputClauses + 1 + (options.reservedIds ?? 0)
    this.lrat = this.proof?.format === 'lrat' ? new LratChains(n) : null
    this.arena = new Int32Array(Math.max(1024, cnf.lits.length + HEADER * (cnf.starts.length - 1) + 16))
    this.value = new Int8Array(litCount)
    this.level = new Int32Array(n + 1)
    this.reason = new Int32Array(n + 1).fill(NO_REASON)
    this.trail = new Int32Array(n + 1)
    this.trailLim = new Int32Array(n + 1)
    this.order = new VarOrder(n, VAR_DECAY)
    this.polarity = new Uint8Array(n + 1).fill(1)
    this.seen = new Uint8Array(n + 1)
    this.learnt = new Int32Array(n + 1)
    this.toClear = new Int32Array(64)
    this.minimizeStack = new Int32Array(64)
    this.levelStamp = new Int32Array(n + 2)
    this.order.seed(initialActivity(cnf))
    this.watches = new WatchLists(this.loadClauses(cnf))
    for (let c = 0; c < this.arenaTop; c += HEADER + this.arena[c]!) this.attach(c)
  }

  solve(options: SolveOptions = {}): SolveOutcome {
    const { deadline, now, onProgress, shouldStop } = options
    const maxConflicts = options.maxConflicts ?? Number.POSITIVE_INFINITY
    const maxDecisions = options.maxDecisions ?? Number.POSITIVE_INFINITY
    this.propagationLimit = options.maxPropagations ?? Number.POSITIVE_INFINITY
    const assumptions = this.assumptionCodes(options.assumptions)
    const watchClock = deadline !== undefined && now !== undefined
    const watchWork = watchClock || onProgress !== undefined || shouldStop !== undefined
    let cancelled = false
    const stats = this.stats
    const finish = (status: SatStatus, stoppedBy: StopReason | null = null, core: number[] | null = null): SolveOutcome => ({
      status,
      model: status === 'SAT' ? this.model() : null,
      stats: { ...stats },
      stoppedBy,
      core: status === 'UNSAT' && assumptions.length > 0 ? (core ?? []) : null,
    })
    if (this.unsat) return finish('UNSAT')
    // A later call starts over from the level-0 facts (its assumptions may differ).
    this.cancelUntil(0)
    if (watchClock && now() > deadline) return finish('UNKNOWN', 'deadline')
    // Work-based, not count-based: on a huge formula one conflict can cost milliseconds.
    let nextClockReading = CLOCK_WORK_INTERVAL
    const timeIsUp = (): boolean => {
      if (!watchWork) return false
      const work = stats.propagations + 16 * stats.conflicts + this.scanned
      if (work < nextClockReading) return false
      nextClockReading = work + CLOCK_WORK_INTERVAL
      onProgress?.(stats)
      if (shouldStop?.()) return (cancelled = true)
      return watchClock && now() > deadline
    }
    const stopReason = (): StopReason => (cancelled ? 'cancelled' : 'deadline')
    this.timeIsUp = timeIsUp

    for (;;) {
      const conflict = this.propagate()
      if (conflict !== NO_REASON) {
        if (conflict === OUT_OF_PROPAGATIONS) return finish('UNKNOWN', 'propagations')
        if (conflict === OUT_OF_TIME) return finish('UNKNOWN', stopReason())
        stats.conflicts++
        if (this.decisionLevel === 0) {
          this.refuteAtLevelZero(conflict)
          return finish('UNSAT')
        }
        const lbd = this.analyze(conflict)
        this.learnClause(lbd, conflict)
        this.order.decayAll()
        this.restarts.onConflict(lbd)
        if (stats.conflicts >= maxConflicts) return finish('UNKNOWN', 'conflicts')
        if (timeIsUp()) return finish('UNKNOWN', stopReason())
        continue
      }
      if (this.decisionLevel === 0 && this.lrat) this.logLevelZeroUnits()
      if (this.decisionLevel > 0 && this.restarts.shouldRestart(stats.conflicts)) {
        stats.restarts++
        this.cancelUntil(0)
        continue
      }
      if (stats.conflicts >= this.nextReduce) {
        this.reductions++
        this.nextReduce = stats.conflicts + FIRST_REDUCE + REDUCE_INCREMENT * this.reductions
        this.reduceLearnts()
      }
      let next = -1
      while (this.decisionLevel < assumptions.length) {
        const p = assumptions[this.decisionLevel]!
        if (this.value[p] === 1) {
          // Already true: an empty decision level keeps levels and assumptions in step.
          this.trailLim[this.decisionLevel++] = this.trailLen
        } else if (this.value[p] === -1) {
          return finish('UNSAT', null, this.failedAssumptions(p))
        } else {
          next = p
          break
        }
      }
      if (next < 0) {
        next = this.pickBranchLiteral()
        if (next < 0) return finish('SAT')
        if (stats.decisions >= maxDecisions) return finish('UNKNOWN', 'decisions')
        stats.decisions++
      }
      if (timeIsUp()) return finish('UNKNOWN', stopReason())
      this.trailLim[this.decisionLevel++] = this.trailLen
      this.assign(next, NO_REASON)
    }
  }

  /**
   * Adds a clause to a solver between solve calls (model enumeration's blocking clauses): the search restarts from level 0.
   * Not for a solver writing a proof: the clause is no consequence of the formula.
   */
  addClause(dimacs: ArrayLike<number>): void {
    if (this.proof) throw new Error('clauses added to a solver that writes a proof would make the proof unsound')
    this.cancelUntil(0)
    if (this.unsat) return
    const buffer = new Int32Array(dimacs.length)
    const mark = (this.addedMark ??= new Int32Array(2 * this.nVars + 2))
    const stamp = ++this.addedStamp
    let size = 0
    for (let k = 0; k < dimacs.length; k++) {
      const lit = dimacs[k]!
      if (lit === 0 || lit > this.nVars || -lit > this.nVars) throw new RangeError(`literal ${lit} is outside the ${this.nVars} variables`)
      const code = toCode(lit)
      if (this.value[code] === 1 || mark[code ^ 1] === stamp) return // satisfied at level 0, or a tautology
      if (this.value[code] === 0 && mark[code] !== stamp) {
        mark[code] = stamp
        buffer[size++] = code
      }
    }
    const id = this.nextId++
    if (size === 0) this.unsat = true
    else if (size === 1) this.assign(buffer[0]!, NO_REASON)
    else this.attach(this.allocate(buffer, size, false, 0, id))
  }

  /**
   * After a SAT answer: the negations of its decisions (DIMACS). Unit propagation from the decisions gave every other
   * value, so this clause excludes exactly the model found: a short blocking clause for enumeration.
   */
  blockingClause(): number[] {
    const out: number[] = []
    for (let level = 1; level <= this.decisionLevel; level++) {
      const at = this.trailLim[level - 1]!
      const end = level < this.decisionLevel ? this.trailLim[level]! : this.trailLen
      if (at < end && this.reason[this.trail[at]! >> 1] === NO_REASON) out.push(-dimacsOf(this.trail[at]!))
    }
    return out
  }

  /** Assumptions as literal codes, in order; the decision-level arrays grow to hold one level per assumption. */
  private assumptionCodes(assumptions: ArrayLike<number> | undefined): Int32Array {
    const count = assumptions?.length ?? 0
    const codes = new Int32Array(count)
    for (let k = 0; k < count; k++) {
      const lit = assumptions![k]!
      if (lit === 0 || lit > this.nVars || -lit > this.nVars) throw new RangeError(`assumption ${lit} is outside the ${this.nVars} variables`)
      codes[k] = toCode(lit)
    }
    const levels = this.nVars + count + 2
    if (this.trailLim.length < levels) {
      const lim = new Int32Array(levels)
      lim.set(this.trailLim)
      this.trailLim = lim
      this.levelStamp = new Int32Array(levels + 1)
      this.stampCounter = 0
    }
    return codes
  }

  // ---- loading --------------------------------------------------------------------------------------------------

  /**
   * Copies the clauses into the arena (deduplicated, tautologies and level-0 facts applied); returns watch counts. A
   * clause that loses literals (duplicates, or literals false by an earlier unit) is a lemma of the proof.
   */
  private loadClauses(cnf: Cnf): Int32Array {
    const { lits, starts } = cnf
    const clauseCount = starts.length - 1
    const watchCount = new Int32Array(2 * this.nVars + 2)
    const stamp = new Int32Array(2 * this.nVars + 2)
    const proof = this.proof
    let buffer = new Int32Array(64)
    for (let c = 0; c < clauseCount && !this.unsat; c++) {
      const from = starts[c]!
      const to = starts[c + 1]!
      if (to - from > buffer.length) buffer = new Int32Array(to - from)
      const mark = c + 1
      let size = 0
      let satisfied = false
      for (let k = from; k < to; k++) {
        const lit = lits[k]!
        if (lit === 0 || lit > this.nVars || -lit > this.nVars) {
          throw new RangeError(`clause ${c} holds literal ${lit}, outside the ${this.nVars} variables of the CNF`)
        }
        const code = toCode(lit)
        if (stamp[code] === mark) continue
        if (stamp[code ^ 1] === mark) {
          satisfied = true // tautology
          break
        }
        stamp[code] = mark
        const val = this.value[code]!
        if (val === 1) {
          satisfied = true
          break
        }
        if (val === 0) buffer[size++] = code
      }
      if (satisfied) continue
      let id = c + 1
      if (proof && size < to - from) id = this.logStrengthened(buffer, size, lits, from, to, id)
      if (size === 0) {
        this.unsat = true
        // An empty input clause refutes the formula by itself.
        if (proof && to === from) proof.add(this.nextId++, buffer, 0, 0, Int32Array.of(id), this.lrat ? 1 : 0)
      } else if (size === 1) this.assignUnit(buffer[0]!, id)
      else {
        this.allocate(buffer, size, false, 0, id)
        watchCount[buffer[0]! ^ 1]!++
        watchCount[buffer[1]! ^ 1]!++
      }
    }
    return watchCount
  }

  /** Writes an input clause without its duplicate and level-0-false literals as a lemma; answers the lemma's id. */
  private logStrengthened(kept: Int32Array, size: number, lits: Int32Array, from: number, to: number, inputId: number): number {
    const id = this.nextId++
    const lrat = this.lrat
    let hintCount = 0
    if (lrat) {
      lrat.beginHints()
      for (let k = from; k < to; k++) {
        const code = toCode(lits[k]!)
        if (this.value[code] === -1) lrat.unitHint(code >> 1)
      }
      hintCount = lrat.finishHints(inputId)
    }
    this.proof!.add(id, kept, 0, size, lrat ? lrat.hints : kept, hintCount)
    return id
  }

  /** A level-0 fact from a unit clause (input, lemma or learned): its clause id is what LRAT hints cite for it. */
  private assignUnit(code: number, id: number): void {
    this.assign(code, NO_REASON)
    if (this.lrat) this.lrat.unitId[code >> 1] = id
  }

  // ---- clause arena ---------------------------------------------------------------------------------------------

  private allocate(source: Int32Array, size: number, learnt: boolean, lbd: number, id: number): number {
    const need = this.arenaTop + HEADER + size
    if (need > this.arena.length) {
      const grown = new Int32Array(Math.max(need, this.arena.length * 2))
      grown.set(this.arena.subarray(0, this.arenaTop))
      this.arena = grown
    }
    const c = this.arenaTop
    const arena = this.arena
    arena[c] = size
    arena[c + 1] = (learnt ? META_LEARNT : 0) | (lbd << LBD_SHIFT)
    arena[c + 2] = id
    for (let k = 0; k < size; k++) arena[c + HEADER + k] = source[k]!
    this.arenaTop = need
    return c
  }

  private attach(c: number): void {
    const arena = this.arena
    const a = arena[c + HEADER]!
    const b = arena[c + HEADER + 1]!
    const ref = arena[c] === 2 ? ~c : c
    this.watches.push(a ^ 1, ref, b)
    this.watches.push(b ^ 1, ref, a)
  }

  // ---- assignment and propagation ------------------------------------------------------------------------------

  private assign(lit: number, reason: number): void {
    const v = lit >> 1
    this.value[lit] = 1
    this.value[lit ^ 1] = -1
    this.level[v] = this.decisionLevel
    this.reason[v] = reason
    this.trail[this.trailLen++] = lit
  }

  /**
   * Unit propagation over the watch lists; returns a conflicting clause, NO_REASON, OUT_OF_PROPAGATIONS, or OUT_OF_TIME
   * when the clock check (read as the watch search's walk grows) says stop: the trail is kept, a later call goes on.
   */
  private propagate(): number {
    const value = this.value
    const watches = this.watches
    const start = watches.start
    const size = watches.size
    const trail = this.trail
    const arena = this.arena
    let pool = watches.pool
    let conflict = NO_REASON
    let propagated = 0
    const budget = this.propagationLimit - this.stats.propagations
    let scanned = 0
    while (this.qhead < this.trailLen) {
      if (propagated >= budget) {
        conflict = OUT_OF_PROPAGATIONS
        break
      }
      if (scanned >= CLOCK_WORK_INTERVAL) {
        this.scanned += scanned
        scanned = 0
        if (this.timeIsUp?.()) {
          conflict = OUT_OF_TIME
          break
        }
      }
      const p = trail[this.qhead++]!
      const falseLit = p ^ 1
      propagated++
      const base = start[p]!
      const end = base + size[p]!
      let i = base
      let j = base
      while (i < end) {
        const ref = pool[i]!
        const blocker = pool[i + 1]!
        i += 2
        if (value[blocker] === 1) {
          pool[j++] = ref
          pool[j++] = blocker
          continue
        }
        if (ref < 0) {
          pool[j++] = ref
          pool[j++] = blocker
          if (value[blocker] === -1) {
            conflict = ~ref
            while (i < end) pool[j++] = pool[i++]!
          } else {
            this.assign(blocker, ~ref)
          }
          continue
        }
        const lits = ref + HEADER
        if (arena[lits] === falseLit) {
          arena[lits] = arena[lits + 1]!
          arena[lits + 1] = falseLit
        }
        const first = arena[lits]!
        if (first !== blocker && value[first] === 1) {
          pool[j++] = ref
          pool[j++] = first
          continue
        }
        const clauseSize = arena[ref]!
        let moved = false
        let k = 2
        for (; k < clauseSize; k++) {
          const candidate = arena[lits + k]!
          if (value[candidate] !== -1) {
            arena[lits + 1] = candidate
            arena[lits + k] = falseLit
            // The other list may move or the pool grow; this list (p) stays where it is.
            watches.push(candidate ^ 1, ref, first)
            pool = watches.pool
            moved = true
            break
          }
        }
        scanned += k - 1
        if (moved) continue
        pool[j++] = ref
        pool[j++] = first
        if (value[first] === -1) {
          conflict = ref
          while (i < end) pool[j++] = pool[i++]!
        } else {
          this.assign(first, ref)
        }
      }
      size[p] = j - base
      if (conflict !== NO_REASON) {
        this.qhead = this.trailLen
        break
      }
    }
    this.stats.propagations += propagated
    this.scanned += scanned
    return conflict
  }

  private cancelUntil(target: number): void {
    if (this.decisionLevel <= target) return
    const bound = this.trailLim[target]!
    const value = this.value
    for (let t = this.trailLen - 1; t >= bound; t--) {
      const lit = this.trail[t]!
      const v = lit >> 1
      value[lit] = 0
      value[lit ^ 1] = 0
      this.reason[v] = NO_REASON
      this.polarity[v] = lit & 1
      this.order.insert(v)
    }
    this.trailLen = bound
    this.qhead = bound
    this.decisionLevel = target
  }

  // ---- conflict analysis ----------------------------------------------------------------------------------------

  /** First-UIP analysis into `this.learnt` (asserting literal first, backjump literal second); returns its LBD. */
  private analyze(conflict: number): number {
    const arena = this.arena
    const seen = this.seen
    const level = this.level
    const trail = this.trail
    const learnt = this.learnt
    let len = 1
    let pathCount = 0
    let p = -1
    let index = this.trailLen - 1
    let clause = conflict
    const currentLevel = this.decisionLevel
    do {
      this.touchLearnt(clause)
      const size = arena[clause]!
      const lits = clause + HEADER
      for (let k = 0; k < size; k++) {
        const q = arena[lits + k]!
        if (q === p) continue
        const v = q >> 1
        if (seen[v] === 0 && level[v]! > 0) {
          seen[v] = 1
          this.order.bump(v)
          if (level[v]! >= currentLevel) pathCount++
          else learnt[len++] = q
        }
      }
      while (seen[trail[index]! >> 1] === 0) index--
      p = trail[index--]!
      clause = this.reason[p >> 1]!
      seen[p >> 1] = 0
      pathCount--
    } while (pathCount > 0)
    learnt[0] = p ^ 1

    len = this.minimize(len)

    if (len > 1) {
      let best = 1
      for (let k = 2; k < len; k++) if (level[learnt[k]! >> 1]! > level[learnt[best]! >> 1]!) best = k
      const swap = learnt[1]!
      learnt[1] = learnt[best]!
      learnt[best] = swap
    }
    this.learntLen = len
    return this.computeLbd(learnt, 0, len)
  }

  /** Recursive minimisation (MiniSat's litRedundant) with an explicit stack; clears `seen` afterwards. */
  private minimize(len: number): number {
    const learnt = this.learnt
    const reason = this.reason
    this.ensureToClear(len)
    this.toClearLen = 0
    let abstract = 0
    for (let k = 1; k < len; k++) {
      const v = learnt[k]! >> 1
      this.toClear[this.toClearLen++] = v
      abstract |= 1 << (this.level[v]! & 31)
    }
    let kept = 1
    for (let k = 1; k < len; k++) {
      const lit = learnt[k]!
      if (reason[lit >> 1] === NO_REASON || !this.redundant(lit, abstract)) learnt[kept++] = lit
    }
    const seen = this.seen
    for (let k = 0; k < this.toClearLen; k++) seen[this.toClear[k]!] = 0
    return kept
  }

  private redundant(start: number, abstract: number): boolean {
    const arena = this.arena
    const seen = this.seen
    const level = this.level
    const reason = this.reason
    let stack = this.minimizeStack
    let top = 0
    stack[top++] = start >> 1
    const clearMark = this.toClearLen
    while (top > 0) {
      const v = stack[--top]!
      const c = reason[v]!
      const size = arena[c]!
      for (let k = 0; k < size; k++) {
        const u = arena[c + HEADER + k]! >> 1
        if (u === v || seen[u] === 1 || level[u] === 0) continue
        if (reason[u] !== NO_REASON && (abstract & (1 << (level[u]! & 31))) !== 0) {
          seen[u] = 1
          if (top === stack.length) {
            const grown = new Int32Array(stack.length * 2)
            grown.set(stack)
            this.minimizeStack = stack = grown
          }
          stack[top++] = u
          this.ensureToClear(this.toClearLen + 1)
          this.toClear[this.toClearLen++] = u
        } else {
          for (let t = clearMark; t < this.toClearLen; t++) seen[this.toClear[t]!] = 0
          this.toClearLen = clearMark
          return false
        }
      }
    }
    return true
  }

  private ensureToClear(size: number): void {
    if (size <= this.toClear.length) return
    const grown = new Int32Array(Math.max(size, this.toClear.length * 2))
    grown.set(this.toClear.subarray(0, this.toClearLen))
    this.toClear = grown
  }

  private computeLbd(source: Int32Array, from: number, to: number): number {
    if (this.stampCounter === 0x3fffffff) {
      this.levelStamp.fill(0)
      this.stampCounter = 0
    }
    const stamp = ++this.stampCounter
    const level = this.level
    const levelStamp = this.levelStamp
    let lbd = 0
    for (let k = from; k < to; k++) {
      const lv = level[source[k]! >> 1]!
      if (levelStamp[lv] !== stamp) {
        levelStamp[lv] = stamp
        lbd++
      }
    }
    return lbd
  }

  /** A learned clause taking part in a conflict is marked used, and its LBD is refreshed if it dropped. */
  private touchLearnt(c: number): void {
    const arena = this.arena
    const meta = arena[c + 1]!
    if ((meta & META_LEARNT) === 0) return
    const old = meta >> LBD_SHIFT
    let lbd = old
    if (old > CORE_LBD) {
      const fresh = this.computeLbd(arena, c + HEADER, c + HEADER + arena[c]!)
      if (fresh < old) lbd = fresh
    }
    arena[c + 1] = (meta & 7) | META_USED | (lbd << LBD_SHIFT)
  }

  private learnClause(lbd: number, conflict: number): void {
    const len = this.learntLen
    const learnt = this.learnt
    const id = this.nextId++
    this.stats.learned++
    if (this.proof?.live) this.proof.add(id, learnt, 0, len, this.lrat ? this.lrat.hints : learnt, this.lrat ? this.chainFor(conflict, learnt, len) : 0)
    this.cancelUntil(len > 1 ? this.level[learnt[1]! >> 1]! : 0)
    if (len === 1) {
      this.assignUnit(learnt[0]!, id)
      return
    }
    const c = this.allocate(learnt, len, true, lbd, id)
    this.attach(c)
    if (this.learntCount === this.learnts.length) {
      const grown = new Int32Array(this.learnts.length * 2)
      grown.set(this.learnts)
      this.learnts = grown
    }
    this.learnts[this.learntCount++] = c
    this.assign(learnt[0]!, c)
  }

  // ---- proof ----------------------------------------------------------------------------------------------------

  /**
   * LRAT hints for `clause` (codes, all false now), implied by the conflicting `conflict`: the unit clauses of the level-0
   * facts met, then the reasons of the literals between the clause and the conflict in trail order, then the conflict.
   */
  private chainFor(conflict: number, clause: Int32Array, size: number): number {
    const lrat = this.lrat!
    lrat.beginHints()
    for (let k = 0; k < size; k++) lrat.markInClause(clause[k]! >> 1)
    let pending = this.visitForChain(conflict, -1)
    for (let t = this.trailLen - 1; pending > 0; t--) {
      if (t < 0) throw new Error('LRAT chain: the implication graph does not lead back to the clause')
      const v = this.trail[t]! >> 1
      if (!lrat.isNeeded(v)) continue
      pending--
      const r = this.reason[v]!
      if (r === NO_REASON) throw new Error('LRAT chain: reached a decision that is not in the clause')
      lrat.antecedent(this.arena[r + 2]!)
      pending += this.visitForChain(r, v)
    }
    return lrat.finishHints(this.arena[conflict + 2]!)
  }

  /** Notes the literals of clause `c` (but `skip`'s): level-0 ones as unit hints, others outside the clause as needed. */
  private visitForChain(c: number, skip: number): number {
    const lrat = this.lrat!
    const arena = this.arena
    let added = 0
    for (let k = c + HEADER; k < c + HEADER + arena[c]!; k++) {
      const v = arena[k]! >> 1
      if (v === skip) continue
      if (this.level[v] === 0) lrat.unitHint(v)
      else if (!lrat.inClause(v) && lrat.need(v)) added++
    }
    return added
  }

  /** LRAT: every level-0 fact implied by a clause becomes a unit lemma, so that hints can cite it by one id. */
  private logLevelZeroUnits(): void {
    const lrat = this.lrat!
    const proof = this.proof!
    for (; this.unitsLogged < this.trailLen && proof.live; this.unitsLogged++) {
      const v = this.trail[this.unitsLogged]! >> 1
      if (lrat.unitId[v] !== 0) continue
      const r = this.reason[v]!
      if (r === NO_REASON) throw new Error(`LRAT: level-0 variable ${v} has neither a reason nor a unit clause`)
      lrat.beginHints()
      this.visitUnits(r, v)
      const count = lrat.finishHints(this.arena[r + 2]!)
      const id = this.nextId++
      proof.add(id, this.trail, this.unitsLogged, 1, lrat.hints, count)
      lrat.unitId[v] = id
    }
  }

  private visitUnits(c: number, skip: number): void {
    const arena = this.arena
    for (let k = c + HEADER; k < c + HEADER + arena[c]!; k++) if (arena[k]! >> 1 !== skip) this.lrat!.unitHint(arena[k]! >> 1)
  }

  /** The empty clause, from a conflict among level-0 facts. */
  private refuteAtLevelZero(conflict: number): void {
    const proof = this.proof
    if (!proof?.live) return
    const lrat = this.lrat
    let count = 0
    if (lrat) {
      this.logLevelZeroUnits()
      lrat.beginHints()
      this.visitUnits(conflict, -1)
      count = lrat.finishHints(this.arena[conflict + 2]!)
    }
    proof.add(this.nextId++, this.learnt, 0, 0, lrat ? lrat.hints : this.learnt, count)
  }

  /**
   * The failed assumptions when assumption `p` is found false (MiniSat's analyzeFinal): `p` and the assumptions its
   * falsity follows from. The proof gets the clause of their negations, then the empty clause from the core's units.
   */
  private failedAssumptions(p: number): number[] {
    const core = [dimacsOf(p)]
    const codes = [p]
    const seen = this.seen
    if (this.level[p >> 1]! > 0) {
      seen[p >> 1] = 1
      for (let t = this.trailLen - 1; t >= this.trailLim[0]!; t--) {
        const v = this.trail[t]! >> 1
        if (seen[v] === 0) continue
        seen[v] = 0
        const r = this.reason[v]!
        if (r === NO_REASON) {
          core.push(dimacsOf(this.trail[t]!))
          codes.push(this.trail[t]!)
          continue
        }
        for (let k = r + HEADER; k < r + HEADER + this.arena[r]!; k++) {
          const u = this.arena[k]! >> 1
          if (u !== v && this.level[u]! > 0) seen[u] = 1
        }
      }
    }
    if (this.proof?.live) this.logCore(p, codes)
    return core
  }

  /** Proof of a core: the clause of the negated core literals (unless it is a tautology), then the empty clause. */
  private logCore(p: number, codes: number[]): void {
    const proof = this.proof!
    const lrat = this.lrat
    // Core unit k is clause inputClauses + 1 + k of the formula the proof is checked against.
    const unitIdOf = (k: number) => this.inputClauses + 1 + k
    const complement = codes.findIndex((code) => codes.includes(code ^ 1))
    if (complement >= 0) {
      const hints = Int32Array.of(unitIdOf(complement), unitIdOf(codes.indexOf(codes[complement]! ^ 1)))
      proof.add(this.nextId++, hints, 0, 0, hints, lrat ? 2 : 0)
      return
    }
    const negated = Int32Array.from(codes, (code) => code ^ 1)
    const id = this.nextId++
    let count = 0
    if (lrat) {
      const v = p >> 1
      if (this.level[v] === 0) {
        lrat.beginHints()
        lrat.unitHint(v)
        count = lrat.finishHints(-1)
      } else {
        count = this.chainFor(this.reason[v]!, negated, negated.length)
      }
    }
    proof.add(id, negated, 0, negated.length, lrat ? lrat.hints : negated, count)
    const hints = Int32Array.from({ length: codes.length + 1 }, (_, k) => (k < codes.length ? unitIdOf(k) : id))
    proof.add(this.nextId++, negated, 0, 0, hints, lrat ? hints.length : 0)
  }

  // ---- decisions ------------------------------------------------------------------------------------------------

  private pickBranchLiteral(): number {
    const value = this.value
    const order = this.order
    while (!order.isEmpty) {
      const v = order.pop()
      if (value[v << 1] === 0) return (v << 1) | this.polarity[v]!
    }
    return -1
  }

  // ---- learned clause database --------------------------------------------------------------------------------

  private isLocked(c: number): boolean {
    const first = this.arena[c + HEADER]!
    return this.reason[first >> 1] === c && this.value[first] === 1
  }

  /** Keeps core clauses (LBD ≤ 2), reasons, and tier-2 ones (LBD ≤ 6) used since the last time; deletes the worst 75% of the rest by LBD. */
  private reduceLearnts(): void {
    const arena = this.arena
    const candidates: number[] = []
    for (let k = 0; k < this.learntCount; k++) {
      const c = this.learnts[k]!
      const meta = arena[c + 1]!
      if (meta >> LBD_SHIFT <= CORE_LBD) continue
      if ((meta & META_USED) !== 0) {
        arena[c + 1] = meta & ~META_USED
        if (meta >> LBD_SHIFT <= TIER2_LBD) continue
      }
      if (this.isLocked(c)) continue
      candidates.push(c)
    }
    candidates.sort((a, b) => (arena[b + 1]! >> LBD_SHIFT) - (arena[a + 1]! >> LBD_SHIFT) || a - b)
    const removeCount = Math.floor(candidates.length * REDUCE_FRACTION)
    if (removeCount === 0) return
    const proof = this.proof?.live ? this.proof : null
    for (let k = 0; k < removeCount; k++) {
      const c = candidates[k]!
      arena[c + 1] = arena[c + 1]! | META_DELETED
      this.wasted += HEADER + arena[c]!
      proof?.delete(this.nextId - 1, arena[c + 2]!, arena, c + HEADER, arena[c]!)
    }
    if (this.wasted * 4 > this.arenaTop) this.compact()
    else this.dropDeletedWatches()
  }

  private dropDeletedWatches(): void {
    const arena = this.arena
    this.watches.rewrite((ref) => (ref >= 0 && (arena[ref + 1]! & META_DELETED) !== 0 ? null : ref))
    let kept = 0
    for (let k = 0; k < this.learntCount; k++) {
      const c = this.learnts[k]!
      if ((arena[c + 1]! & META_DELETED) === 0) this.learnts[kept++] = c
    }
    this.learntCount = kept
  }

  /** Copies live clauses into a fresh arena and rewrites every reference (watches, reasons, learned list). */
  private compact(): void {
    const old = this.arena
    const fresh = new Int32Array(Math.max(1024, this.arenaTop - this.wasted + (this.arenaTop >> 2)))
    let top = 0
    for (let c = 0; c < this.arenaTop; ) {
      const size = old[c]!
      const next = c + HEADER + size
      if ((old[c + 1]! & META_DELETED) === 0) {
        fresh.set(old.subarray(c, next), top)
        old[c + 1] = top
        top += HEADER + size
      } else {
        old[c + 1] = -1
      }
      c = next
    }
    this.watches.rewrite((ref) => {
      const moved = old[(ref < 0 ? ~ref : ref) + 1]!
      return moved < 0 ? null : ref < 0 ? ~moved : moved
    })
    for (let t = 0; t < this.trailLen; t++) {
      const v = this.trail[t]! >> 1
      const r = this.reason[v]!
      if (r !== NO_REASON) this.reason[v] = old[r + 1]!
    }
    let kept = 0
    for (let k = 0; k < this.learntCount; k++) {
      const moved = old[this.learnts[k]! + 1]!
      if (moved >= 0) this.learnts[kept++] = moved
    }
    this.learntCount = kept
    this.arena = fresh
    this.arenaTop = top
    this.wasted = 0
  }

  // ---- answer ---------------------------------------------------------------------------------------------------

  private model(): Int8Array {
    const model = new Int8Array(this.nVars + 1)
    for (let v = 1; v <= this.nVars; v++) model[v] = this.value[v << 1] === -1 ? -1 : 1
    return model
  }
}

/** LRAT bookkeeping: each level-0 fact's unit clause id, and the buffers and marks hints are built with. */
class LratChains {
  /** Per variable: the id of a unit clause asserting its level-0 value, 0 while it has none. */
  readonly unitId: Int32Array
  hints = new Int32Array(64)
  private units = new Int32Array(64)
  private unitCount = 0
  private chain = new Int32Array(64)
  private chainCount = 0
  private readonly unitMark: Int32Array
  private readonly clauseMark: Int32Array
  private readonly neededMark: Int32Array
  private stamp = 0

  constructor(vars: number) {
    this.unitId = new Int32Array(vars + 1)
    this.unitMark = new Int32Array(vars + 1)
    this.clauseMark = new Int32Array(vars + 1)
    this.neededMark = new Int32Array(vars + 1)
  }

  beginHints(): void {
    if (++this.stamp === 0x7fffffff) {
      this.unitMark.fill(0)
      this.clauseMark.fill(0)
      this.neededMark.fill(0)
      this.stamp = 1
    }
    this.unitCount = 0
    this.chainCount = 0
  }

  /** The unit clause of level-0 variable v, once per chain. */
  unitHint(v: number): void {
    if (this.unitMark[v] === this.stamp) return
    this.unitMark[v] = this.stamp
    const id = this.unitId[v]!
    if (id === 0) throw new Error(`LRAT: level-0 variable ${v} has no unit clause yet`)
    this.units = push(this.units, this.unitCount++, id)
  }

  markInClause(v: number): void {
    this.clauseMark[v] = this.stamp
  }

  inClause(v: number): boolean {
    return this.clauseMark[v] === this.stamp
  }

  /** Marks v as needing its reason in the chain; false when it already was. */
  need(v: number): boolean {
    if (this.neededMark[v] === this.stamp) return false
    this.neededMark[v] = this.stamp
    return true
  }

  isNeeded(v: number): boolean {
    return this.neededMark[v] === this.stamp
  }

  /** A reason, met walking the trail backwards. */
  antecedent(id: number): void {
    this.chain = push(this.chain, this.chainCount++, id)
  }

  /** Lays out `hints`: units, the reasons in trail order, then `last` (unless negative); answers their count. */
  finishHints(last: number): number {
    const count = this.unitCount + this.chainCount + (last >= 0 ? 1 : 0)
    if (this.hints.length < count) this.hints = new Int32Array(Math.max(count, this.hints.length * 2))
    const hints = this.hints
    hints.set(this.units.subarray(0, this.unitCount))
    let at = this.unitCount
    for (let k = this.chainCount - 1; k >= 0; k--) hints[at++] = this.chain[k]!
    if (last >= 0) hints[at++] = last
    return count
  }
}

function push(array: Int32Array<ArrayBuffer>, at: number, value: number): Int32Array<ArrayBuffer> {
  let target = array
  if (at === array.length) {
    target = new Int32Array(array.length * 2)
    target.set(array)
  }
  target[at] = value
  return target
}
