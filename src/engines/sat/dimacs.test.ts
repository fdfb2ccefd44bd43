import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DimacsLimitError, DimacsSyntaxError, parseDimacs, PEEK_HEADER_CHARS, peekDimacsHeader, toDimacs } from './dimacs.js'
import { clausesOf } from './cnf.js'

const clauses = (text: string) => clausesOf(parseDimacs(text).cnf)

function syntaxError(text: string): DimacsSyntaxError {
  try {
    parseDimacs(text)
  } catch (err) {
    if (err instanceof DimacsSyntaxError) return err
    throw err
  }
  throw new Error('expected a DimacsSyntaxError')
}

describe('parseDimacs: accepted input', () => {
  it('reads comments, the header and one clause per line', () => {
    const parsed = parseDimacs('c a comment\np cnf 3 2\n1 -2 0\n2 3 0\n')
    expect(parsed.cnf.vars).toBe(3)
    expect(clausesOf(parsed.cnf)).toEqual([[1, -2], [2, 3]])
    expect(parsed.warnings).toEqual([])
  })

  it('lets clauses span lines and share lines: only 0 ends a clause', () => {
    expect(clauses('p cnf 4 3\n1 2\n-3\n0 4 0 -1\n-4 0\n')).toEqual([[1, 2, -3], [4], [-1, -4]])
  })

  it('stops at the SATLIB % trailer, so the lone 0 after it is not an empty clause', () => {
    const parsed = parseDimacs('p cnf  3  1 \n 1 -2 3 0\n%\n0\n\n')
    expect(clausesOf(parsed.cnf)).toEqual([[1, -2, 3]])
    expect(parsed.warnings).toEqual([])
  })

  it('warns about text after the trailer other than 0', () => {
    expect(parseDimacs('p cnf 1 1\n1 0\n%\n0\n2 0\n').warnings.join(' ')).toMatch(/after the '%' trailer/)
  })

  it('takes tabs, CRLF, aligned headers, leading spaces and no final newline', () => {
    expect(clauses('p cnf   3  2\r\n\t1\t-3  0\r\n  2 0')).toEqual([[1, -3], [2]])
  })

  it('takes comment lines after the header and between clauses', () => {
    expect(clauses('p cnf 2 2\nc one\n1 0\nc two\n2 0\nc end of file\n')).toEqual([[1], [2]])
  })

  it('keeps tautologies and unit clauses as written (the solver deals with them)', () => {
    expect(clauses('p cnf 44 2\n4 44 -44 0\n-4 0\n')).toEqual([[4, 44, -44], [-4]])
  })

  it('accepts an empty formula', () => {
    const parsed = parseDimacs('p cnf 0 0\n')
    expect(parsed.cnf.vars).toBe(0)
    expect(clausesOf(parsed.cnf)).toEqual([])
    expect(parsed.warnings).toEqual([])
  })

  it('reads an explicit empty clause', () => {
    expect(clauses('p cnf 1 2\n1 0\n0\n')).toEqual([[1], []])
  })

  it('warns, without failing, when the header over- or under-states the counts', () => {
    const under = parseDimacs('p cnf 3 1\n1 0\n2 0\n3 0\n')
    expect(clausesOf(under.cnf)).toHaveLength(3)
    expect(under.warnings).toEqual(['the header declares 1 clauses but 3 were read'])
    const over = parseDimacs('p cnf 10 5\n1 2 0\n')
    expect(over.warnings).toContain('the header declares 5 clauses but 1 were read')
    expect(over.warnings).toContain('the header declares 10 variables; the largest one used is 2')
    expect(over.cnf.vars).toBe(10)
  })

  it('keeps a last clause not terminated by 0, with a warning', () => {
    const parsed = parseDimacs('p cnf 3 2\n1 2 0\n-1\n  3')
    expect(clausesOf(parsed.cnf)).toEqual([[1, 2], [-1, 3]])
    expect(parsed.warnings).toEqual(['the last clause (from line 3) is not terminated by 0; it was kept'])
  })

  it('reads back any CNF however its tokens are spaced, split across lines and commented (property)', () => {
    const separator = fc.constantFrom(' ', '  ', '\t', '\n', ' \r\n', '\nc a comment\n', '\n\n')
    const arb = fc.array(fc.array(fc.integer({ min: -30, max: 30 }).filter((x) => x !== 0), { maxLength: 6 }), { maxLength: 20 })
    fc.assert(
      fc.property(arb, fc.array(separator, { minLength: 1, maxLength: 8 }), fc.boolean(), (cnf, seps, trailer) => {
        let i = 0
        const sep = () => seps[i++ % seps.length]!
        const body = cnf.map((clause) => [...clause, 0].map((lit) => `${lit}${sep()}`).join('')).join('')
        const text = `c generated\np cnf 30 ${cnf.length}\n${body}${trailer ? '\n%\n0\n' : ''}`
        const parsed = parseDimacs(text)
        expect(clausesOf(parsed.cnf)).toEqual(cnf)
        expect(parsed.warnings.filter((w) => /clauses/.test(w))).toEqual([])
      }),
      { numRuns: 500, seed: 11 },
    )
  })

  it('round-trips through toDimacs', () => {
    const text = 'p cnf 5 3\n1 -5 0\n2 3 4 0\n-1 0\n'
    expect(toDimacs(parseDimacs(text).cnf)).toBe(text)
  })

  it('parses a multi-MiB formula', () => {
    const lines: string[] = ['p cnf 100000 300000']
    let seed = 1
    for (let c = 0; c < 300_000; c++) {
      const lits: number[] = []
      for (let k = 0; k < 3; k++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff
        const v = 1 + (seed % 100_000)
        lits.push(seed & 1 ? v : -v)
      }
      lines.push(`${lits.join(' ')} 0`)
    }
    const text = lines.join('\n')
    expect(text.length).toBeGreaterThan(5 * 1024 * 1024)
    const parsed = parseDimacs(text)
    expect(parsed.cnf.starts.length - 1).toBe(300_000)
    expect(parsed.cnf.lits.length).toBe(900_000)
  })
})

describe('parseDimacs: refused input names line and column', () => {
  const cases: Array<[string, string, number, number, RegExp]> = [
    ['a non-integer token', 'p cnf 3 1\n1 x2 0\n', 2, 3, /'x2' is not an integer literal/],
    ['a float', 'p cnf 3 1\n1 2.5 0\n', 2, 3, /'2.5' is not an integer/],
    ['a plus sign', 'p cnf 3 1\n+1 0\n', 2, 1, /'\+1' is not an integer/],
    ['a dangling minus', 'p cnf 3 1\n1 - 2 0\n', 2, 3, /'-' is not an integer/],
    ['-0', 'p cnf 3 1\n1 -0\n', 2, 3, /'-0' is not a literal/],
    ['a literal before the header', 'c x\n1 2 0\np cnf 2 1\n', 2, 1, /before the 'p cnf/],
    ['no header at all', 'c only a comment\n', 2, 1, /no 'p cnf/],
    ['empty input', '', 1, 1, /no 'p cnf/],
    ['a second header', 'p cnf 2 1\np cnf 2 1\n1 0\n', 2, 1, /a second 'p' header \(the first is on line 1\)/],
    ['a header after clauses', 'p cnf 2 2\n1 0\np cnf 2 1\n', 3, 1, /a second 'p' header/],
    ['another format', 'p sat 3\n', 1, 3, /only 'p cnf' is supported/],
    ['a header without counts', 'p cnf\n1 0\n', 1, 6, /no variable count/],
    ['a header without clause count', 'p cnf 3\n1 0\n', 1, 8, /no clause count/],
    ['a header with extra fields', 'p cnf 3 1 9\n1 0\n', 1, 11, /extra fields/],
    ['a negative count', 'p cnf -3 1\n', 1, 7, /variable count '-3' is not a non-negative integer/],
    ['a header glued to its word', 'pcnf 3 1\n', 1, 1, /'pcnf' is not a header/],
    ['a variable above the header', 'p cnf 3 2\n1 2 0\n  -4 1 0\n', 3, 3, /variable 4 is above the header's 3 variables/],
  ]
  it.each(cases)('%s', (_name, text, line, column, message) => {
    const err = syntaxError(text)
    expect({ line: err.line, column: err.column }).toEqual({ line, column })
    expect(err.detail).toMatch(message)
    expect(err.message).toMatch(new RegExp(`^line ${line}, column ${column}: `))
  })

  it('enforces limits from the header and while reading', () => {
    const limits = { maxVars: 10, maxClauses: 2, maxLiterals: 4 }
    expect(() => parseDimacs('p cnf 11 1\n', limits)).toThrow(DimacsLimitError)
    expect(() => parseDimacs('p cnf 5 3\n', limits)).toThrow(/maxClauses = 2/)
    expect(() => parseDimacs('p cnf 5 1\n1 0\n2 0\n3 0\n', limits)).toThrow(/more than 2 clauses/)
    expect(() => parseDimacs('p cnf 5 1\n1 2 3 4 5 0\n', limits)).toThrow(/maxLiterals = 4/)
  })
})

describe('peekDimacsHeader', () => {
  it('reads the counts after comments, or null', () => {
    expect(peekDimacsHeader('c x\n\n  p cnf 7   9 \n1 0')).toEqual({ vars: 7, clauses: 9 })
    expect(peekDimacsHeader('1 2 0\n')).toBeNull()
    expect(peekDimacsHeader('p cnf x 1\n')).toBeNull()
  })

  it('looks no further than PEEK_HEADER_CHARS, and parseDimacs checks a later header with the same limits', () => {
    const comments = 'c padding\n'.repeat(Math.ceil(PEEK_HEADER_CHARS / 10))
    const late = `${comments}p cnf 9 1\n1 0\n`
    expect(peekDimacsHeader('c x\n'.repeat(100) + 'p cnf 9 1\n1 0\n')).toEqual({ vars: 9, clauses: 1 })
    expect(peekDimacsHeader(late)).toBeNull()
    expect(() => parseDimacs(late, { maxVars: 8, maxClauses: 10, maxLiterals: 10 })).toThrow(DimacsLimitError)
  })
})
