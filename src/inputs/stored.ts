// Heavy operations whose large bodies become their jobs' stored input in the mill (issue #30: on the loop a request
// handles at most 64 KiB of JSON as a value): the schema, limits and input action their routes declare, in one table
// the mill reads too. The registry checks that each such operation declares these very rules (caller/registry.ts).
import type { z } from 'zod'
import { parseFormula } from '../engines/sat/formula.js'
import { FORMULA_LIMITS } from './formula.js'
import { jsonsatInput, jsonsatInputAction, type JsonsatInput } from './jsonsat.js'
import { checkSearchLimits, satInput, satInputAction } from './sat.js'

export interface StoredInputRules<S extends z.ZodType = z.ZodType> {
  schema: S
  /**
   * The declared limits of a large input, checked in the mill before its job is stored: the refusals its route's
   * checkLimits gives, or an engine's input error (a formula's syntax), which the mill turns into the same refusal.
   */
  checkLimits(input: z.output<S>): void
  /** The action the raw input calls for (Operation.inputAction), asked before its validation. */
  inputAction: (raw: unknown) => 'pin.write' | null
}

export const STORED_INPUTS = {
  sat: { schema: satInput, checkLimits: checkSearchLimits, inputAction: satInputAction },
  // A formula's size and syntax are known only from its parse: in the mill, the whole formula is parsed once here.
  jsonsat: { schema: jsonsatInput, checkLimits: (i: JsonsatInput) => void parseFormula(i.formula, FORMULA_LIMITS, 'formula'), inputAction: jsonsatInputAction },
} satisfies Record<string, StoredInputRules>


export type StoredInputOp = keyof typeof STORED_INPUTS

export const isStoredInputOp = (name: string): name is StoredInputOp => Object.hasOwn(STORED_INPUTS, name)
