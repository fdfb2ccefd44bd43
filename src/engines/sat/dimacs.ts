// DIMACS CNF parser: a single char-code scan that copes with SATLIB's quirks and names the line and column of bad input.
import { IntBuffer, type Cnf } from './cnf.js'

/*
 * Accepted: `c` comment lines anywhere, one `p cnf <vars> <clauses>` header before the first literal, clauses that span
 * lines or share a line (only `0` ends a clause), any run of spaces/tabs/CR, the SATLIB trailer (a line starting with `%`
 * ends the formula), and a last clause without its `0` (kept, with a warning). A clause count that differs from the
 * header and declared variables that never occur are warnings.
 * Refused (DimacsSyntaxError, with line and column): a token that is not an integer, a missing, repeated or malformed
 * header, a literal whose variable is above the header's count (a header that understates its variables is not
 * guessed around: the file is inconsistent).
 */

export interface DimacsLimits {
  maxVars: number
  maxClauses: number
  maxLiterals: number
}

export interface ParsedDimacs {
  cnf: Cnf
  /** The header's counts as written. */
  declaredVars: number
  declaredClauses: number
  /** The largest variable that occurs in a clause. */
  maxVarUsed: number
  warnings: string[]
}

export class DimacsSyntaxError extends Error {
  override name = 'DimacsSyntaxError'
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`line ${line}, column ${column}: ${detail}`)
  }
}

/** The input is well formed but larger than the caller allows; `limit` names which limit. */
export class DimacsLimitError extends Error {
  override name = 'DimacsLimitError'
  constructor(
    readonly limit: keyof DimacsLimits,
    readonly value: number,
    message: string,
  ) {
    super(message)
  }
}

const NO_LIMITS: DimacsLimits = { maxVars: 2 ** 31 - 2, maxClauses: 2 ** 31 - 2, maxLiterals: 2 ** 31 - 2 }

const LF = 10
const CR = 13
const SPACE = 32
const TAB = 9
const VT = 11
const FF = 12
const MINUS = 45
const ZERO = 48
const NINE = 57
const LOWER_C = 99
const LOWER_P = 112
const PERCENT = 37

const isBlank = (ch: number): boolean => ch === SPACE || ch === TAB || ch === CR || ch === VT || ch === FF

export function parseDimacs(text: string, limits: DimacsLimits = NO_LIMITS): ParsedDimacs {
  const n = text.length
  const warnings: string[] = []
  const lits = new IntBuffer(Math.min(1 << 20, (n >> 1) + 16))
  const starts = new IntBuffer(Math.min(1 << 18, (n >> 3) + 16))
  starts.push(0)

  let declaredVars = -1
  let declaredClauses = -1
  let headerLine = 0
  let maxVarUsed = 0
  let clauseOpen = false
  let clauseStartLine = 0

  let line = 1
  let lineStart = 0
  let i = 0
  let atLineStart = true

  const fail = (at: number, detail: string): never => {
    throw new DimacsSyntaxError(line, at - lineStart + 1, detail)
  }
  const tokenEnd = (from: number): number => {
    let j = from
    while (j < n) {
      const ch = text.charCodeAt(j)
      if (ch === LF || isBlank(ch)) break
      j++
    }
    return j
  }
  const quote = (from: number): string => {
    const token = text.slice(from, Math.min(tokenEnd(from), from + 40))
    return `'${token}'`
  }
  const skipToLineEnd = (): void => {
    while (i < n && text.charCodeAt(i) !== LF) i++
  }

  scan: while (i < n) {
    const ch = text.charCodeAt(i)
    if (ch === LF) {
      i++
      line++
      lineStart = i
      atLineStart = true
      continue
    }
    if (isBlank(ch)) {
      i++
      continue
    }
    if (atLineStart) {
      atLineStart = false
      if (ch === LOWER_C) {
        skipToLineEnd()
        continue
      }
      if (ch === PERCENT) {
        if (/[^\s0]/.test(text.slice(i + 1))) warnings.push(`the text after the '%' trailer on line ${line} was ignored`)
        break scan
      }
      if (ch === LOWER_P) {
        if (declaredVars >= 0) fail(i, `a second 'p' header (the first is on line ${headerLine})`)
        i = parseHeader(i)
        continue
      }
    }
    // A literal.
    const tokenStart = i
    let negative = false
    if (ch === MINUS) {
      negative = true
      i++
    }
    let value = 0
    let digits = 0
    while (i < n) {
      const d = text.charCodeAt(i)
      if (d < ZERO || d > NINE) break
      if (digits < 16) value = value * 10 + (d - ZERO)
      digits++
      i++
    }
    if (digits === 0 || (i < n && !isBlank(text.charCodeAt(i)) && text.charCodeAt(i) !== LF)) {
      fail(tokenStart, `${quote(tokenStart)} is not an integer literal`)
    }
    if (declaredVars < 0) fail(tokenStart, "a literal before the 'p cnf <vars> <clauses>' header")
    if (value === 0) {
      if (negative) fail(tokenStart, "'-0' is not a literal; a clause ends with 0")
      starts.push(lits.length)
      clauseOpen = false
      if (starts.length - 1 > limits.maxClauses) {
        throw new DimacsLimitError('maxClauses', limits.maxClauses, `the formula has more than ${limits.maxClauses} clauses (limit maxClauses = ${limits.maxClauses})`)
      }
      continue
    }
    if (value > declaredVars) {
      fail(tokenStart, `variable ${digits > 15 ? text.slice(tokenStart, i).replace('-', '') : value} is above the header's ${declaredVars} variables`)
    }
    if (!clauseOpen) {
      clauseOpen = true
      clauseStartLine = line
    }
    if (value > maxVarUsed) maxVarUsed = value
    lits.push(negative ? -value : value)
    if (lits.length > limits.maxLiterals) {
      throw new DimacsLimitError('maxLiterals', limits.maxLiterals, `the formula has more than ${limits.maxLiterals} literals (limit maxLiterals = ${limits.maxLiterals})`)
    }
  }

  if (declaredVars < 0) {
    throw new DimacsSyntaxError(line, i - lineStart + 1, "no 'p cnf <vars> <clauses>' header: the input has no formula")
  }
  if (clauseOpen) {
    starts.push(lits.length)
    warnings.push(`the last clause (from line ${clauseStartLine}) is not terminated by 0; it was kept`)
  }
  const clauseCount = starts.length - 1
  if (clauseCount !== declaredClauses) {
    warnings.push(`the header declares ${declaredClauses} clauses but ${clauseCount} were read`)
  }
  if (maxVarUsed < declaredVars) {
    warnings.push(`the header declares ${declaredVars} variables; the largest one used is ${maxVarUsed}`)
  }
  return {
    cnf: { vars: declaredVars, lits: lits.toArray(), starts: starts.toArray() },
    declaredVars,
    declaredClauses,
    maxVarUsed,
    warnings,
  }

  /** Reads `p cnf V C` from position `at` (the 'p') to the end of its line; returns the position of the line end. */
  function parseHeader(at: number): number {
    const fields: Array<{ start: number; text: string }> = []
    let j = at
    while (j < n) {
      const ch = text.charCodeAt(j)
      if (ch === LF) break
      if (isBlank(ch)) {
        j++
        continue
      }
      const start = j
      while (j < n) {
        const c = text.charCodeAt(j)
        if (c === LF || isBlank(c)) break
        j++
      }
      if (fields.length === 5) fail(start, "the header has extra fields; expected 'p cnf <vars> <clauses>'")
      fields.push({ start, text: text.slice(start, Math.min(j, start + 40)) })
    }
    const [p, format, vars, clauses] = fields
    if (p?.text !== 'p') fail(at, `${quote(at)} is not a header; expected 'p cnf <vars> <clauses>'`)
    if (!format) fail(j, "the header ends after 'p'; expected 'p cnf <vars> <clauses>'")
    if (format!.text !== 'cnf') fail(format!.start, `the format is '${format!.text}'; only 'p cnf' is supported`)
    if (!vars) fail(j, "the header has no variable count; expected 'p cnf <vars> <clauses>'")
    if (!clauses) fail(j, "the header has no clause count; expected 'p cnf <vars> <clauses>'")
    if (fields.length > 4) fail(fields[4]!.start, "the header has extra fields; expected 'p cnf <vars> <clauses>'")
    declaredVars = headerCount(vars!, 'variable')
    declaredClauses = headerCount(clauses!, 'clause')
    headerLine = line
    if (declaredVars > limits.maxVars) {
      throw new DimacsLimitError('maxVars', limits.maxVars, `the header declares ${declaredVars} variables (limit maxVars = ${limits.maxVars})`)
    }
    if (declaredClauses > limits.maxClauses) {
      throw new DimacsLimitError('maxClauses', limits.maxClauses, `the header declares ${declaredClauses} clauses (limit maxClauses = ${limits.maxClauses})`)
    }
    return j
  }

  function headerCount(field: { start: number; text: string }, what: string): number {
    const t = field.text
    let value = 0
    for (let k = 0; k < t.length; k++) {
      const d = t.charCodeAt(k)
      if (d < ZERO || d > NINE) fail(field.start, `the ${what} count '${t}' is not a non-negative integer`)
      value = value * 10 + (d - ZERO)
    }
    if (t.length > 10 || value > NO_LIMITS.maxVars) fail(field.start, `the ${what} count '${t}' is too large`)
    return value
  }
}

/** How far peekDimacsHeader looks for the header: a constant cost on the caller's thread, whatever the comments. */
export const PEEK_HEADER_CHARS = 64 * 1024

/**
 * Reads only the header's counts (stops at the first non-comment line, and after PEEK_HEADER_CHARS); null when there
 * is none up front. A header behind more comments than that is checked by parseDimacs, with the same limits.
 */
export function peekDimacsHeader(text: string): { vars: number; clauses: number } | null {
  let i = 0
  const n = Math.min(text.length, PEEK_HEADER_CHARS)
  while (i < n) {
    while (i < n && isBlank(text.charCodeAt(i))) i++
    if (i >= n) return null
    const ch = text.charCodeAt(i)
    if (ch === LF) {
      i++
      continue
    }
    let end = text.indexOf('\n', i)
    if (end < 0 || end > n) end = n
    if (ch === LOWER_C) {
      i = end + 1
      continue
    }
    if (ch !== LOWER_P) return null
    const fields = text.slice(i, Math.min(end, i + 200)).trim().split(/\s+/)
    if (fields.length !== 4 || fields[1] !== 'cnf') return null
    const vars = Number(fields[2])
    const clauses = Number(fields[3])
    return Number.isSafeInteger(vars) && Number.isSafeInteger(clauses) ? { vars, clauses } : null
  }
  return null
}

/** Writes a CNF as DIMACS text. */
export function toDimacs(cnf: Cnf, comments: string[] = []): string {
  const clauseCount = cnf.starts.length - 1
  const parts: string[] = []
  for (const comment of comments) parts.push(`c ${comment}\n`)
  parts.push(`p cnf ${cnf.vars} ${clauseCount}\n`)
  for (let c = 0; c < clauseCount; c++) {
    let line = ''
    for (let k = cnf.starts[c]!; k < cnf.starts[c + 1]!; k++) line += `${cnf.lits[k]} `
    parts.push(`${line}0\n`)
  }
  return parts.join('')
}
