// Finds the module specifiers a TypeScript/JavaScript source imports, with a tokenizer (comments, strings, templates,
// regex literals), not a grep: static `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')`, `require('x')`,
// `import x = require('x')`; `import type` / `export type` are marked type-only (erased at compile time).

export interface TsImport {
  specifier: string
  line: number
  typeOnly: boolean
  dynamic: boolean
}

interface Token {
  kind: 'name' | 'string' | 'punct' | 'template'
  value: string
  line: number
}

// After these a `/` starts a regular expression rather than a division.
const REGEX_AFTER_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await'])

export function tsImports(source: string): TsImport[] {
  const tokens = tokenize(source)
  const out: TsImport[] = []
  // `import x = require('y')` is read once, as an import: its require() must not count again.
  const consumed = new Set<Token>()
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.kind !== 'name') continue
    const prev = tokens[i - 1]
    // `x.import`, `x.require` are property names, not keywords.
    if (prev && prev.kind === 'punct' && (prev.value === '.' || prev.value === '?.')) continue
    const next = tokens[i + 1]
    if ((t.value === 'import' || t.value === 'require') && next?.value === '(') {
      const arg = tokens[i + 2]
      if (arg?.kind === 'string' && !consumed.has(arg) && (tokens[i + 3]?.value === ')' || tokens[i + 3]?.value === ',')) {
        // `typeof import('x')` is a type query: erased, nothing is loaded.
        const typeQuery = t.value === 'import' && prev?.kind === 'name' && prev.value === 'typeof'
        out.push({ specifier: arg.value, line: t.line, typeOnly: typeQuery, dynamic: t.value === 'import' })
      }
      continue
    }
    if (t.value === 'import') {
      if (next?.kind === 'string') {
        out.push({ specifier: next.value, line: t.line, typeOnly: false, dynamic: false })
        continue
      }
      if (next?.value === '.') continue // import.meta
      const typeOnly = next?.kind === 'name' && next.value === 'type' && tokens[i + 2]?.value !== 'from' && tokens[i + 2]?.value !== ','
      const found = findFrom(tokens, i + 1)
      if (found) {
        consumed.add(found)
        out.push({ specifier: found.value, line: t.line, typeOnly, dynamic: false })
      }
      continue
    }
    if (t.value === 'export' && (next?.value === '*' || next?.value === '{' || (next?.value === 'type' && (tokens[i + 2]?.value === '{' || tokens[i + 2]?.value === '*')))) {
      const found = findFrom(tokens, i + 1)
      if (found) out.push({ specifier: found.value, line: t.line, typeOnly: next.value === 'type', dynamic: false })
    }
  }
  return out
}

/** From tokens[start], the string after `from` (or after `require(` for `import x = require('y')`) before the clause ends. */
function findFrom(tokens: Token[], start: number): Token | null {
  let depth = 0
  for (let j = start; j < tokens.length && j < start + 2000; j++) {
    const t = tokens[j]!
    if (t.kind === 'punct' && t.value === '{') depth++
    else if (t.kind === 'punct' && t.value === '}') depth--
    if (depth > 0 || t.value === '}' || t.value === '{') continue
    if (t.kind === 'name' && t.value === 'from' && tokens[j + 1]?.kind === 'string') return tokens[j + 1]!
    if (t.kind === 'name' && t.value === 'require' && tokens[j + 1]?.value === '(' && tokens[j + 2]?.kind === 'string') return tokens[j + 2]!
    if (t.kind === 'punct' && !['*', ',', '='].includes(t.value)) return null
    if (t.kind === 'string' || t.kind === 'template') return null
    // Two plain names in a row (`export { a }` then `const x`) means the clause ended without `from`.
    const prev = tokens[j - 1]
    if (t.kind === 'name' && j > start && prev?.kind === 'name' && !['type', 'as', 'from'].includes(prev.value) && !['as', 'from', 'require'].includes(t.value)) {
      return null
    }
  }
  return null
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  const n = source.length
  let i = 0
  let line = 1
  // Template literal nesting: each entry is the brace depth at which a `${` opened.
  const templateStack: number[] = []
  let braceDepth = 0

  const regexAllowed = () => {
    const last = tokens[tokens.length - 1]
    if (!last) return true
    if (last.kind === 'string' || last.kind === 'template') return false
    if (last.kind === 'name') return REGEX_AFTER_KEYWORDS.has(last.value)
    return !(last.value === ')' || last.value === ']' || last.value === '}')
  }

  const readTemplate = (from: number): number => {
    // from: index just after the opening backtick or the closing `}` of a substitution
    let j = from
    while (j < n) {
      const ch = source[j]!
      if (ch === '\\') {
        j += 2
        continue
      }
      if (ch === '\n') line++
      if (ch === '`') {
        tokens.push({ kind: 'template', value: '', line })
        return j + 1
      }
      if (ch === '$' && source[j + 1] === '{') {
        templateStack.push(braceDepth)
        braceDepth++
        tokens.push({ kind: 'punct', value: '${', line })
        return j + 2
      }
      j++
    }
    return j
  }

  while (i < n) {
    const c = source[i]!
    if (c === '\n') {
      line++
      i++
      continue
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++
      continue
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++
      continue
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end < 0 ? n : end + 2
      for (let k = i; k < stop; k++) if (source[k] === '\n') line++
      i = stop
      continue
    }
    if (c === '"' || c === "'") {
      let j = i + 1
      let value = ''
      while (j < n && source[j] !== c && source[j] !== '\n') {
        if (source[j] === '\\') {
          value += source[j + 1] ?? ''
          j += 2
          continue
        }
        value += source[j]
        j++
      }
      tokens.push({ kind: 'string', value, line })
      i = j + 1
      continue
    }
    if (c === '`') {
      i = readTemplate(i + 1)
      continue
    }
    if (c === '}' && templateStack.length > 0 && templateStack[templateStack.length - 1] === braceDepth - 1) {
      templateStack.pop()
      braceDepth--
      i = readTemplate(i + 1)
      continue
    }
    if (c === '/' && regexAllowed()) {
      let j = i + 1
      let inClass = false
      while (j < n && source[j] !== '\n') {
        const ch = source[j]!
        if (ch === '\\') {
          j += 2
          continue
        }
        if (ch === '[') inClass = true
        else if (ch === ']') inClass = false
        else if (ch === '/' && !inClass) break
        j++
      }
      j++
      while (j < n && /[a-z]/i.test(source[j]!)) j++
      tokens.push({ kind: 'punct', value: '/regex/', line })
      i = j
      continue
    }
    if (/[A-Za-z_$\u0080-\uffff]/.test(c)) {
      let j = i + 1
      while (j < n && /[\w$\u0080-\uffff]/.test(source[j]!)) j++
      tokens.push({ kind: 'name', value: source.slice(i, j), line })
      i = j
      continue
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1
      while (j < n && /[\w.]/.test(source[j]!)) j++
      tokens.push({ kind: 'name', value: source.slice(i, j), line })
      i = j
      continue
    }
    if (c === '?' && source[i + 1] === '.') {
      tokens.push({ kind: 'punct', value: '?.', line })
      i += 2
      continue
    }
    if (c === '{') braceDepth++
    else if (c === '}') braceDepth--
    tokens.push({ kind: 'punct', value: c, line })
    i++
  }
  return tokens
}
