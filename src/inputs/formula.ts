// A JSON formula as /jsonsat and /quiz take it: its schema atom and declared limits, below the surfaces (see cnf.ts).
import { z } from 'zod'
import type { FormulaLimits } from '../engines/sat/formula.js'
import { hasAtMostValues } from '../json/loop-rule.js'

/** Declared limits of the logic lobe (SPEC §1.2 over_limit): each refusal names the limit and its value. */
export const FORMULA_LIMITS: FormulaLimits = {
  maxNodes: 2_000_000,
  maxVars: 100_000,
  maxNameLength: 256,
  maxCounterCells: 10_000_000,
}

export const formulaInput = z
  .unknown()
  .refine((value) => value !== undefined, { message: 'a formula is required' })
  .describe(
    'F = {"var": name} | {"not": F} | {"and": [F…]} | {"or": [F…]} | {"implies": [F, F]} | {"iff": [F, F]} | {"xor": [F…]} | ' +
      '{"atMost": {"k": int, "of": [F…]}} | {"atLeast": …} | {"exactly": …} | true | false',
  )

/** A JSON formula is parsed on the event loop (~1 µs a node) only when it holds at most this many values. */
export const INLINE_MAX_NODES = 16_384

/** Whether a formula's value is small enough to parse and work on the loop (else the route sends it to the mill). */
export const isSmallFormulaValue = (value: unknown): boolean => hasAtMostValues(value, INLINE_MAX_NODES)
