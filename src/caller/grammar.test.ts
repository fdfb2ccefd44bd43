import { describe, expect, it } from 'vitest'
import { editDistance, parseArgv, refuseOverlongOperation, tokenize } from './grammar.js'
import { registry } from './registry.js'
import { Refusal } from '../http/refusal.js'

describe('tokenize', () => {
  it('splits like a shell: quotes, escapes, empty quoted strings', () => {
    expect(tokenize(`sat --dimacs 'p cnf 1 1\n1 0'`)).toEqual(['sat', '--dimacs', 'p cnf 1 1\n1 0'])
    expect(tokenize(`a "b \\"c\\" d" e\\ f ''`)).toEqual(['a', 'b "c" d', 'e f', ''])
    expect(tokenize('  x   y  ')).toEqual(['x', 'y'])
  })
  it('refuses an unterminated quote', () => {
    expect(() => tokenize(`sat --dimacs 'p cnf`)).toThrow(Refusal)
  })
})

describe('editDistance', () => {
  it('is the Levenshtein distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('same', 'same')).toBe(0)
  })
})

describe('parseArgv', () => {
  it('maps flags to fields typed by the input schema, --json merged first', () => {
    const { op, input } = parseArgv(['run', '--json', '{"op":"x"}', '--op', 'lexicon'], registry)
    expect(op.name).toBe('run')
    expect(input).toEqual({ op: 'lexicon' })
  })
  it('accepts --flag=value, nested --a.b and paths as names', () => {
    const parsed = parseArgv(['/run', '--op=captions', '--input.k', '3'], registry)
    expect(parsed.op.name).toBe('run')
    expect(parsed.input).toEqual({ op: 'captions', input: { k: 3 } })
  })
  it('refuses an unknown operation with the closest names', () => {
    try {
      parseArgv(['captons'], registry)
      expect.unreachable()
    } catch (err) {
      expect((err as Refusal).code).toBe('not_found')
      expect((err as Refusal).options.hints?.closest).toContain('captions')
    }
  })
  it('refuses @file over HTTP and reads it in the binary', () => {
    expect(() => parseArgv(['run', '--op', '@/etc/passwd'], registry)).toThrow(/@file/)
    const parsed = parseArgv(['run', '--op', '@x.txt'], registry, { readFile: (p) => `content of ${p}` })
    expect(parsed.input.op).toBe('content of x.txt')
  })
  it('refuses prototype-polluting flag names', () => {
    expect(() => parseArgv(['run', '--__proto__.x', '1'], registry)).toThrow(Refusal)
  })
})

describe('refuseOverlongOperation', () => {
  it('refuses a first word longer than any operation as parseArgv would, naming the closest operations', () => {
    const line = '  ' + 'sat'.repeat(400) + ' --dimacs x'
    const early = (() => { try { refuseOverlongOperation(line, registry) } catch (err) { return err as Refusal } })()
    const late = (() => { try { parseArgv(tokenize(line), registry) } catch (err) { return err as Refusal } })()
    expect(early).toBeInstanceOf(Refusal)
    expect(early!.code).toBe('not_found')
    expect(early!.message).toContain('(over 1024 characters)')
    expect(late!.message).toContain('(1200 characters)')
    expect(early!.options.hints).toEqual(late!.options.hints)
  })

  it('lets lines whose first word could be an operation through, quoted words included', () => {
    for (const line of ['sat --dimacs "p cnf 1 1"', '  captions', `"${'q'.repeat(2000)}"`, 'q'.repeat(1024)]) {
      expect(() => refuseOverlongOperation(line, registry)).not.toThrow()
    }
  })
})
