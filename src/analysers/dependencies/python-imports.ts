// Finds the modules a Python source imports, with a tokenizer (comments, strings, brackets, continuations), not a grep.
// Handles `import a.b as c, d`, `from x import (…)` over several lines, `;`-separated and one-line compound statements,
// `importlib.import_module('literal')` / `__import__('literal')`; skips relative imports and `if TYPE_CHECKING:` blocks.
// An import inside a `try`/`except`/`finally` block is "guarded": the script runs without it (pip-check-reqs treats
// `try: import X except ImportError` the same way). Written for Python 3.11 syntax; PEP 701 f-strings that reuse their
// own quote inside a replacement field (3.12+) would end the string early.

export interface PythonImport {
  /** The top-level module: what must be installed. */
  module: string
  /** The dotted name as written. */
  full: string
  line: number
  guarded: boolean
  via: 'import' | 'from' | 'dynamic'
}

interface Token {
  kind: 'name' | 'op' | 'string' | 'number'
  value: string
  line: number
}

interface Statement {
  indent: number
  line: number
  tokens: Token[]
}

const STRING_PREFIX = /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/
const HEADER_KEYWORDS = new Set(['if', 'elif', 'else', 'try', 'except', 'finally', 'for', 'while', 'with', 'def', 'class', 'async', 'match', 'case'])

export function pythonImports(source: string): PythonImport[] {
  const found: PythonImport[] = []
  const stack: Array<{ indent: number; kind: 'try' | 'type-checking' | 'other' }> = []
  for (const statement of statements(source)) {
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= statement.indent) stack.pop()
    handle(statement)
  }
  return found

  function handle(statement: Statement) {
    const { tokens } = statement
    const first = tokens[0]
    if (!first) return
    const typeChecking = stack.some((b) => b.kind === 'type-checking')
    const guarded = stack.some((b) => b.kind === 'try')
    if (!typeChecking) collect(tokens, guarded)
    if (first.kind === 'name' && HEADER_KEYWORDS.has(first.value)) {
      const colon = headerColon(tokens)
      if (colon < 0) return
      const header = tokens.slice(0, colon)
      const kind = ['try', 'except', 'finally'].includes(first.value)
        ? 'try'
        : first.value === 'if' && header.some((t) => t.value === 'TYPE_CHECKING')
          ? 'type-checking'
          : 'other'
      stack.push({ indent: statement.indent, kind })
      const body = tokens.slice(colon + 1)
      // `try: import x` — a one-line body is a statement of the block just opened.
      if (body.length > 0) {
        for (const part of splitOn(body, ';')) handle({ indent: statement.indent + 1, line: part[0]!.line, tokens: part })
        stack.pop()
      }
    }
  }

  function collect(tokens: Token[], guarded: boolean) {
    const first = tokens[0]!
    if (first.kind === 'name' && first.value === 'import') {
      for (const clause of splitOn(tokens.slice(1), ',')) {
        const name = dotted(clause, 0)
        if (name) found.push(entry(name.value, first.line, guarded, 'import'))
      }
    } else if (first.kind === 'name' && first.value === 'from') {
      const name = dotted(tokens, 1)
      // `from . import x` / `from .m import y` are relative: local by definition.
      if (name && tokens[1]?.value !== '.' && tokens[name.end]?.value === 'import') {
        found.push(entry(name.value, first.line, guarded, 'from'))
      }
    }
    for (let i = 0; i + 3 < tokens.length; i++) {
      const callee = tokens[i]!
      if (callee.kind !== 'name' || (callee.value !== 'import_module' && callee.value !== '__import__')) continue
      const open = tokens[i + 1]!
      const arg = tokens[i + 2]!
      const close = tokens[i + 3]!
      if (open.value === '(' && arg.kind === 'string' && (close.value === ')' || close.value === ',') && /^[A-Za-z_][\w.]*$/.test(arg.value)) {
        found.push(entry(arg.value, callee.line, guarded, 'dynamic'))
      }
    }
  }
}

function entry(full: string, line: number, guarded: boolean, via: PythonImport['via']): PythonImport {
  return { module: full.split('.')[0]!, full, line, guarded, via }
}

/** A dotted name starting at tokens[start]: `a.b.c`; `end` is the index after it. */
function dotted(tokens: Token[], start: number): { value: string; end: number } | null {
  let i = start
  if (tokens[i]?.kind !== 'name') return null
  let value = tokens[i]!.value
  i++
  while (tokens[i]?.value === '.' && tokens[i + 1]?.kind === 'name') {
    value += '.' + tokens[i + 1]!.value
    i += 2
  }
  return { value, end: i }
}

function splitOn(tokens: Token[], separator: string): Token[][] {
  const parts: Token[][] = [[]]
  let depth = 0
  for (const token of tokens) {
    if (token.kind === 'op' && '([{'.includes(token.value)) depth++
    if (token.kind === 'op' && ')]}'.includes(token.value)) depth--
    if (depth === 0 && token.kind === 'op' && token.value === separator) parts.push([])
    else parts[parts.length - 1]!.push(token)
  }
  return parts.filter((p) => p.length > 0)
}

/** Index of the `:` that ends a compound statement's header (outside brackets and lambdas), or -1. */
function headerColon(tokens: Token[]): number {
  let depth = 0
  let lambdas = 0
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++
    else if (t.kind === 'op' && ')]}'.includes(t.value)) depth--
    else if (depth === 0 && t.kind === 'name' && t.value === 'lambda') lambdas++
    else if (depth === 0 && t.kind === 'op' && t.value === ':') {
      if (lambdas > 0) lambdas--
      else return i
    }
  }
  return -1
}

/** Logical lines, split at top-level `;`, each with the indentation of its line. */
export function statements(source: string): Statement[] {
  const out: Statement[] = []
  let tokens: Token[] = []
  let depth = 0
  let line = 1
  let atLineStart = true
  let column = 0
  let indent = 0
  const n = source.length
  let i = 0
  const flush = () => {
    for (const part of splitOn(tokens, ';')) out.push({ indent, line: part[0]!.line, tokens: part })
    tokens = []
  }
  const push = (token: Token) => {
    if (tokens.length === 0) indent = column
    atLineStart = false
    tokens.push(token)
  }
  while (i < n) {
    const c = source[i]!
    if (c === '\n') {
      line++
      i++
      if (depth === 0 && tokens.length > 0) flush()
      atLineStart = true
      column = 0
      continue
    }
    if (c === '\\' && (source[i + 1] === '\n' || (source[i + 1] === '\r' && source[i + 2] === '\n'))) {
      i += source[i + 1] === '\n' ? 2 : 3
      line++
      continue
    }
    if (c === '#') {
      while (i < n && source[i] !== '\n') i++
      continue
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      if (atLineStart && tokens.length === 0) column = c === '\t' ? (Math.floor(column / 8) + 1) * 8 : column + 1
      i++
      continue
    }
    if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let j = i + 1
      while (j < n && /[\w\u0080-\uffff]/.test(source[j]!)) j++
      const word = source.slice(i, j)
      if ((source[j] === '"' || source[j] === "'") && STRING_PREFIX.test(word)) {
        i = readString(j)
        continue
      }
      push({ kind: 'name', value: word, line })
      i = j
      continue
    }
    if (c === '"' || c === "'") {
      i = readString(i)
      continue
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      let j = i + 1
      while (j < n && /[\w.]/.test(source[j]!)) j++
      push({ kind: 'number', value: source.slice(i, j), line })
      i = j
      continue
    }
    if ('([{'.includes(c)) depth++
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1)
    push({ kind: 'op', value: c, line })
    i++
  }
  if (tokens.length > 0) flush()
  return out

  /** Reads a string literal starting at its opening quote; pushes it and returns the index after it. */
  function readString(start: number): number {
    const quote = source[start]!
    const triple = source.startsWith(quote.repeat(3), start)
    const delimiter = triple ? quote.repeat(3) : quote
    const startLine = line
    let j = start + delimiter.length
    while (j < n) {
      const ch = source[j]!
      if (ch === '\\') {
        if (source[j + 1] === '\n') line++
        j += 2
        continue
      }
      if (ch === '\n') {
        if (!triple) break // unterminated single-quoted string: stop at the line end like the tokenizer's error recovery
        line++
      }
      if (source.startsWith(delimiter, j)) {
        push({ kind: 'string', value: source.slice(start + delimiter.length, j), line: startLine })
        return j + delimiter.length
      }
      j++
    }
    push({ kind: 'string', value: source.slice(start + delimiter.length, j), line: startLine })
    return j
  }
}
