// Statements are written with SQLite's `?` and `@name` parameters; PostgreSQL numbers them ($1, $2, …). The rewrite
// skips quoted strings, quoted identifiers and comments, so a `?` or `@` inside them stays text.

export interface NumberedStatement {
  /** The statement with $n parameters. */
  readonly text: string
  /** Named form: the name bound to $1, $2, … (a name used twice is one parameter). Null for the positional form. */
  readonly names: readonly string[] | null
  /** How many parameters the statement takes. */
  readonly count: number
}

const NAME_START = /[A-Za-z_]/
const NAME_PART = /[A-Za-z0-9_]/

export function numberPlaceholders(text: string): NumberedStatement {
  let out = ''
  let positional = 0
  const names: string[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    const skipTo = endOfQuotedOrComment(text, i)
    if (skipTo > i) {
      out += text.slice(i, skipTo)
      i = skipTo
    } else if (c === '?') {
      out += `$${++positional}`
      i++
    } else if (c === '@' && NAME_START.test(text[i + 1] ?? '') && !NAME_PART.test(text[i - 1] ?? '')) {
      let end = i + 1
      while (end < text.length && NAME_PART.test(text[end]!)) end++
      const name = text.slice(i + 1, end)
      let index = names.indexOf(name)
      if (index < 0) index = names.push(name) - 1
      out += `$${index + 1}`
      i = end
    } else {
      out += c
      i++
    }
  }
  if (positional > 0 && names.length > 0) throw new Error('a statement takes either ? or @name parameters, not both')
  return names.length > 0 ? { text: out, names, count: names.length } : { text: out, names: null, count: positional }
}

/** Where the string, quoted identifier or comment starting at i ends; i itself when none starts there. */
function endOfQuotedOrComment(text: string, i: number): number {
  const c = text[i]
  if (c === "'" || c === '"') {
    // A doubled quote inside is an escaped quote: scanning on from it finds the true end.
    let end = i + 1
    for (;;) {
      end = text.indexOf(c, end)
      if (end < 0) return text.length
      if (text[end + 1] === c) end += 2
      else return end + 1
    }
  }
  if (c === '-' && text[i + 1] === '-') {
    const end = text.indexOf('\n', i)
    return end < 0 ? text.length : end
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2)
    return end < 0 ? text.length : end + 2
  }
  return i
}

/** The values for a numbered statement, in $n order; a named parameter missing from params is an error, as in SQLite. */
export function valuesFor(statement: NumberedStatement, params: readonly unknown[] | Readonly<Record<string, unknown>>): unknown[] {
  if (statement.names === null) {
    if (!Array.isArray(params)) {
      if (statement.count > 0) throw new Error('statement has ? parameters but was given named values')
      return []
    }
    return params as unknown[]
  }
  if (Array.isArray(params)) throw new Error('statement has @name parameters but was given positional values')
  const named = params as Readonly<Record<string, unknown>>
  return statement.names.map((name) => {
    if (!(name in named)) throw new Error(`missing named parameter "${name}"`)
    return named[name]
  })
}
