import { describe, expect, it } from 'vitest'
import { cancelFlag, createControl, progressSink, readProgress, requestCancel } from './progress.js'
import { satWork } from './tasks/logic.js'

/** Pigeon hole with n holes: UNSAT, exponential for CDCL, so a search that runs until it is stopped. */
function pigeonHoleDimacs(holes: number): string {
  const v = (p: number, h: number) => p * holes + h + 1
  const clauses: string[] = []
  for (let p = 0; p <= holes; p++) clauses.push([...Array(holes).keys()].map((h) => v(p, h)).join(' ') + ' 0')
  for (let h = 0; h < holes; h++) for (let a = 0; a <= holes; a++) for (let b = a + 1; b <= holes; b++) clauses.push(`-${v(a, h)} -${v(b, h)} 0`)
  return `p cnf ${(holes + 1) * holes} ${clauses.length}\n${clauses.join('\n')}\n`
}

describe('task control buffer', () => {
  it('carries phase, done/total and counters from the sink to the reader; unknown totals stay null', () => {
    const control = createControl()
    expect(readProgress(control)).toMatchObject({ writes: 0, phase: 'starting', done: null, total: null, counters: {} })
    const sink = progressSink(control)
    sink.phase('solving')
    sink.counter('conflicts', 42)
    sink.advance(5, null)
    expect(readProgress(control)).toMatchObject({ writes: 3, phase: 'solving', done: 5, total: null, counters: { conflicts: 42 } })
    sink.advance(7, 10)
    expect(readProgress(control)).toMatchObject({ done: 7, total: 10 })
  })

  it('raises the cancel flag the engines poll', () => {
    const control = createControl()
    const cancelled = cancelFlag(control)
    expect(cancelled()).toBe(false)
    requestCancel(control)
    expect(cancelled()).toBe(true)
  })

  it('a SAT search reports its counters as it goes and stops on the flag', () => {
    const control = createControl()
    const limits = { maxVars: 10_000, maxClauses: 100_000, maxLiterals: 1_000_000 }
    let reads = 0
    const sink = progressSink(control)
    // Cancel from inside the search once counters have moved (the main thread would do it from outside).
    const context = {
      progress: { ...sink, counter: (name: Parameters<typeof sink.counter>[0], value: number) => {
        sink.counter(name, value)
        if (name === 'conflicts' && value > 2000 && reads++ === 0) requestCancel(control)
      } },
      cancelled: cancelFlag(control),
    }
    const result = satWork({ dimacs: pigeonHoleDimacs(10), wantModel: false, limits }, Date.now() + 60_000, context)
    expect(result.ok && result.value.status).toBe('UNKNOWN')
    const seen = readProgress(control)
    expect(seen.phase).toBe('solving')
    expect(seen.counters.conflicts).toBeGreaterThan(2000)
    expect(Object.keys(seen.counters).sort()).toEqual(['conflicts', 'decisions', 'learned', 'restarts'])
  })
})
