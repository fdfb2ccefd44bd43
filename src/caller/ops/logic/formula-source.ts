// Which JSON formulas the event loop parses itself: a parse costs ~1 µs a node, so only those of a bounded size; a
// larger one (a /run item's, an MCP call's: a large body's is read in the mill whole) goes to the mill as JSON text
// (the worker parses it) and costs the loop only its text, a part a turn.
import { jsonTextInTurns } from '../../../json/json-writer.js'
import type { FormulaSource } from '../../../mill/tasks/logic.js'
import { flatFormula, FORMULA_LIMITS } from './common.js'
import { isSmallFormulaValue } from '../../../inputs/formula.js'

/**
 * A formula as text for the mill, where the same parse as flatFormula's refuses it with the same invalid_input or
 * over_limit (the task's refusal travels back as data).
 */
export async function formulaText(value: unknown, root = 'formula'): Promise<FormulaSource> {
  return { json: await jsonTextInTurns(value), limits: FORMULA_LIMITS, root }
}

/** A small formula parsed here (its refusals thrown at once), a large one as text for the mill. */
export async function formulaSource(value: unknown, root = 'formula'): Promise<FormulaSource> {
  return isSmallFormulaValue(value) ? flatFormula(value, root) : formulaText(value, root)
}
