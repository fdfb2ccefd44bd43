import { describe, expect, it } from 'vitest'
import { applyJsonPatch, applyUnifiedDiff, PatchError } from './patch.js'

describe('applyUnifiedDiff', () => {
  it('applies hunks with context, additions and removals (GNU diff -u output)', () => {
    const a = 'alpha\nbeta\ngamma\ndelta\n'
    // `diff -u a b` for b = alpha, BETA, gamma, delta, epsilon
    const unified = '--- a\n+++ b\n@@ -1,4 +1,5 @@\n alpha\n-beta\n+BETA\n gamma\n delta\n+epsilon\n'
    expect(applyUnifiedDiff(a, unified)).toBe('alpha\nBETA\ngamma\ndelta\nepsilon\n')
  })

  it('applies several hunks and keeps untouched lines between them', () => {
    const a = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
    const unified = '@@ -1,2 +1,2 @@\n-line 1\n+LINE 1\n line 2\n@@ -11,2 +11,3 @@\n line 11\n line 12\n+line 13\n'
    const want = a.replace('line 1\n', 'LINE 1\n') + 'line 13\n'
    expect(applyUnifiedDiff(a, unified)).toBe(want)
  })

  it('honours "\\ No newline at end of file" on either side', () => {
    expect(applyUnifiedDiff('a\nb', '@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n')).toBe('a\nc\n')
    expect(applyUnifiedDiff('a\nb\n', '@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n')).toBe('a\nc')
  })

  it('handles insertion into an empty file and deletion of everything', () => {
    expect(applyUnifiedDiff('', '@@ -0,0 +1,2 @@\n+x\n+y\n')).toBe('x\ny\n')
    expect(applyUnifiedDiff('x\ny\n', '@@ -1,2 +0,0 @@\n-x\n-y\n')).toBe('')
  })

  it('refuses a hunk whose context does not match, or whose counts are wrong', () => {
    expect(() => applyUnifiedDiff('a\nb\n', '@@ -1,2 +1,2 @@\n a\n-z\n+c\n')).toThrow(PatchError)
    expect(() => applyUnifiedDiff('a\nb\n', '@@ -1,2 +1,3 @@\n a\n-b\n+c\n')).toThrow(/expected 2 and 3/)
    expect(() => applyUnifiedDiff('a\n', 'garbage\n@@ nonsense\n')).toThrow(/hunk header/)
  })
})

describe('applyJsonPatch (RFC 6902 appendix A examples)', () => {
  it('adds, removes, replaces, moves, copies and tests', () => {
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ foo: 'bar', baz: 'qux' })
    expect(applyJsonPatch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] })
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' })
    expect(applyJsonPatch({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] })
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' })
    expect(applyJsonPatch({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]))
      .toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } })
    expect(applyJsonPatch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({ foo: ['all', 'cows', 'eat', 'grass'] })
    expect(applyJsonPatch({ foo: [1, 2] }, [{ op: 'add', path: '/foo/-', value: 3 }, { op: 'copy', from: '/foo', path: '/bar' }])).toEqual({ foo: [1, 2, 3], bar: [1, 2, 3] })
    expect(applyJsonPatch({ '~a/b': 1 }, [{ op: 'replace', path: '/~0a~1b', value: 2 }])).toEqual({ '~a/b': 2 })
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1])
  })

  it('does not change its input and refuses impossible operations', () => {
    const doc = { foo: 'bar' }
    applyJsonPatch(doc, [{ op: 'add', path: '/x', value: 1 }])
    expect(doc).toEqual({ foo: 'bar' })
    expect(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'test', path: '/foo', value: 'baz' }])).toThrow(/test failed/)
    expect(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'replace', path: '/nope', value: 1 }])).toThrow(/does not exist/)
    expect(() => applyJsonPatch({ baz: 'qux' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }])).toThrow(/not a container/)
    expect(() => applyJsonPatch([1], [{ op: 'add', path: '/5', value: 1 }])).toThrow(/bad array index/)
  })
})
