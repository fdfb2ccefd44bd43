import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { diffJsonValues, diffText } from './diff.js'
import { applyUnified } from './apply-unified.js'
import { countTokens, splitLines, splitWords, tokenize } from './tokenize.js'
import { internLines } from './line-ids.js'

const lineText = (alphabet: string[]) =>
  fc.tuple(fc.array(fc.constantFrom(...alphabet), { maxLength: 25 }), fc.boolean()).map(([lines, newlineAtEnd]) => {
    const text = lines.map((l) => l + '\n').join('')
    return newlineAtEnd || text === '' ? text : text.slice(0, -1)
  })
const textPair = fc.tuple(lineText(['a', 'b', 'c', '', 'dd', ' a']), lineText(['a', 'b', 'c', '', 'x', ' a']))

describe('unified diff', () => {
  it('matches the format of GNU diff -u (ranges, omitted ",1", missing newline marker)', () => {
    expect(diffText('a\nb\nc\n', 'a\nB\nc', 'lines', 3).unified).toBe(
      '--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file\n',
    )
    expect(diffText('', 'a\nb\nc\n', 'lines', 3).unified).toBe('--- a\n+++ b\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n')
    expect(diffText('a\nb\nc\n', '', 'lines', 3).unified).toBe('--- a\n+++ b\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n')
    expect(diffText('', 'x', 'lines', 3).unified).toBe('--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n')
  })

  it('is empty for equal texts, including two empty ones', () => {
    for (const text of ['', 'a', 'a\nb\n']) {
      const report = diffText(text, text, 'lines', 3)
      expect(report).toMatchObject({ unified: '', added: 0, removed: 0, hunks: [], verified: true })
    }
  })

  it('splits far-apart changes into hunks and merges near ones', () => {
    const a = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join('')
    const b = a.replace('line 2\n', 'two\n').replace('line 25\n', 'twenty-five\n')
    const report = diffText(a, b, 'lines', 3)
    expect(report.hunks.map((h) => h.header)).toEqual(['@@ -1,6 +1,6 @@', '@@ -23,7 +23,7 @@'])
    expect(diffText(a, b, 'lines', 12).hunks).toHaveLength(1)
    expect(report).toMatchObject({ added: 2, removed: 2, unit: 'line', minimal: true, verified: true })
    expect(report.hunks[0]!.parts).toEqual([
      { kind: 'context', text: 'line 0\nline 1\n' },
      { kind: 'removed', text: 'line 2\n' },
      { kind: 'added', text: 'two\n' },
      { kind: 'context', text: 'line 3\nline 4\nline 5\n' },
    ])
  })

  it('applies to a and gives b, on random pairs', () => {
    fc.assert(
      fc.property(textPair, fc.integer({ min: 0, max: 4 }), ([a, b], context) => {
        const report = diffText(a, b, 'lines', context)
        expect(applyUnified(a, report.unified)).toBe(b)
        expect(report.verified).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('handles CRLF lines, lone surrogates and non-ASCII text', () => {
    for (const [a, b] of [
      ['one\r\ntwo\r\n', 'one\r\nTWO\r\n'],
      ['\ud800\n\udbff\n', '\ud801\n\udbff\n'],
      ['été\n日本\n😀\n', 'été\n日本語\n😀\n'],
    ] as const) {
      const report = diffText(a, b, 'lines', 3)
      expect(report.verified).toBe(true)
      expect(report.added).toBe(1)
      expect(applyUnified(a, report.unified)).toBe(b)
    }
  })
})

describe('words and chars', () => {
  it('tokenises words, whitespace runs and punctuation', () => {
    expect(splitWords('Hello,  wörld_1!\n')).toEqual(['Hello', ',', '  ', 'wörld_1', '!', '\n'])
    expect(tokenize('a😀b', 'chars')).toEqual(['a', '😀', 'b'])
    expect(splitLines('a\nb')).toEqual(['a\n', 'b'])
  })

  it('counts tokens the same way it splits them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        for (const unit of ['lines', 'words', 'chars'] as const) expect(countTokens(text, unit)).toBe(tokenize(text, unit).length)
      }),
    )
  })

  it('reports word changes in tokens and keeps the unified diff line-based', () => {
    const report = diffText('the quick brown fox\n', 'the slow brown fox\n', 'words', 1)
    expect(report).toMatchObject({ unit: 'token', added: 1, removed: 1, verified: true })
    expect(report.hunks[0]!.parts).toEqual([
      { kind: 'context', text: ' ' },
      { kind: 'removed', text: 'quick' },
      { kind: 'added', text: 'slow' },
      { kind: 'context', text: ' ' },
    ])
    expect(report.unified).toContain('-the quick brown fox\n+the slow brown fox\n')
  })

  it('verifies on random pairs in every text mode', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (a, b) => {
        for (const unit of ['lines', 'words', 'chars'] as const) expect(diffText(a, b, unit, 2).verified).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})

describe('line interning', () => {
  it('gives equal lines equal ids across both texts and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }), (a, b) => {
        const ids = internLines(a, b)
        const lines = [...splitLines(a), ...splitLines(b)]
        const all = [...ids.a, ...ids.b]
        for (let i = 0; i < lines.length; i++) {
          for (let j = 0; j < lines.length; j++) expect(all[i] === all[j]).toBe(lines[i] === lines[j])
        }
        expect(Array.from({ length: ids.aLines.length }, (_, i) => ids.aLines.at(i))).toEqual(splitLines(a))
      }),
      { numRuns: 300 },
    )
  })
})

describe('json mode', () => {
  it('diffs the canonically printed values and gives an RFC 6902 patch', () => {
    const report = diffJsonValues({ b: 1, a: [1, 2, 3] }, { a: [1, 3, 4], b: 1, 'c/d': 'x' }, 3)
    expect(report.patch).toEqual([
      { op: 'remove', path: '/a/1' },
      { op: 'add', path: '/a/2', value: 4 },
      { op: 'add', path: '/c~1d', value: 'x' },
    ])
    expect(report.verified).toBe(true)
    expect(report.unified).toContain('+  "c/d": "x"\n')
  })
})

const hasPatch = spawnSync('patch', ['--version'], { encoding: 'utf8' }).status === 0
if (!hasPatch) console.warn('GNU patch is not on PATH: the GNU patch round-trip tests are skipped')

describe.skipIf(!hasPatch)('GNU patch applies our unified diffs (needs `patch` on PATH)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ncm-diff-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let run = 0

  const gnuPatch = (a: string, unified: string): string => {
    const base = join(dir, String(run++))
    writeFileSync(`${base}.orig`, a)
    writeFileSync(`${base}.diff`, unified)
    const result = spawnSync('patch', ['--silent', '--force', '-o', `${base}.out`, `${base}.orig`, `${base}.diff`], {
      encoding: 'utf8',
      timeout: 10_000,
    })
    if (result.status !== 0) throw new Error(`patch failed (${result.status}): ${result.stdout}${result.stderr}`)
    return readFileSync(`${base}.out`, 'utf8')
  }

  it.each([
    ['a change in the middle', 'a\nb\nc\nd\ne\n', 'a\nb\nC\nd\ne\n'],
    ['into an empty file', '', 'x\ny\n'],
    ['to an empty file', 'x\ny\n', ''],
    ['adding a final newline', 'x\ny', 'x\ny\n'],
    ['removing a final newline', 'x\ny\n', 'x\ny'],
    ['no final newline on either side', 'x\ny', 'x\nz'],
    ['CRLF lines', 'one\r\ntwo\r\nthree\r\n', 'one\r\n2\r\nthree\r\n'],
    ['lines that look like diff syntax', '--- a\n+++ b\n@@ -1 +1 @@\n\\ x\n', '--- a\n+++ c\n@@ -1 +1 @@\n\\ y\n'],
  ])('%s', (_name, a, b) => {
    expect(gnuPatch(a, diffText(a, b, 'lines', 3).unified)).toBe(b)
  })

  it('on random pairs', () => {
    fc.assert(
      fc.property(textPair, fc.integer({ min: 0, max: 3 }), ([a, b], context) => {
        const { unified } = diffText(a, b, 'lines', context)
        if (unified === '') return
        expect(gnuPatch(a, unified)).toBe(b)
      }),
      { numRuns: 60 },
    )
  })
})
