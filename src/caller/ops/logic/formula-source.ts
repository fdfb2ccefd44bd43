// Which JSON formulas the event loop parses itself: a parse costs ~1 µs a node, so only those of a bounded size; a
// larger one goes to the mill as JSON text (the worker parses it) and costs the loop only its text, a part a turn, or
// nothing when the mill's body parse sent it as text already (a wide body member: JsonText).
import { jsonTextInTurns } from '../../../json/json-writer.js'
import type { FormulaSource } from '../../../mill/tasks/logic.js'
import { JsonText } from '../../../body-parse/text-members.js'
import { flatFormula, FORMULA_LIMITS, INLINE_MAX_NODES } from './common.js'

/**
 * Whether a parsed JSON value holds at most `max` values. Walks with its own stack (formulas nest 10,000 deep) and
 * stops as soon as the values seen or waiting pass `max`, so it costs O(max) whatever the input's size.
 */
export function hasAtMostValues(value: unknown, max: number): boolean {
  const waiting: unknown[] = [value]
  let seen = 0
  while (waiting.length > 0) {
    const v = waiting.pop()
    seen++
    if (typeof v !== 'object' || v === null) continue
    if (Array.isArray(v)) {
      if (seen + waiting.length + v.length > max) return false
      for (const item of v) waiting.push(item)
      continue
    }
    for (const key in v) {
      waiting.push((v as Record<string, unknown>)[key])
      if (seen + waiting.length > max) return false
    }
  }
  return seen <= max
}

/** A formula sent as text is large by construction (over 16 Ki characters): it is parsed where it is solved. */
export const isSmallFormula = (value: unknown): boolean => !(value instanceof JsonText) && hasAtMostValues(value, INLINE_MAX_NODES)

/**
 * A formula as text for the mill, where the same parse as flatFormula's refuses it with the same invalid_input or
 * over_limit (the task's refusal travels back as data).
 */
export async function formulaText(value: unknown, root = 'formula'): Promise<FormulaSource> {
  const json = value instanceof JsonText ? value.text : await jsonTextInTurns(value)
  return { json, limits: FORMULA_LIMITS, root }
}

/** A small formula parsed here (its refusals thrown at once), a large one as text for the mill. */
export async function formulaSource(value: unknown, root = 'formula'): Promise<FormulaSource> {
  return isSmallFormula(value) ? flatFormula(value, root) : formulaText(value, root)
}
