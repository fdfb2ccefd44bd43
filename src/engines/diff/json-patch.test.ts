import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { applyJsonPatch, diffJson, JsonPatchError, type JsonPatchOperation } from './json-patch.js'
import { formatPointer, JsonPointerError, parsePointer } from './json-pointer.js'
import type { JsonValue } from '../digest/canonical-json.js'

describe('JSON Pointer (RFC 6901)', () => {
  // RFC 6901 §5: the example document's pointers.
  it.each([
    ['', []],
    ['/foo', ['foo']],
    ['/foo/0', ['foo', '0']],
    ['/', ['']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    ['/~01', ['~1']],
    ['/ ', [' ']],
  ])('%j ↔ %j', (pointer, tokens) => {
    expect(parsePointer(pointer)).toEqual(tokens)
    expect(formatPointer(tokens)).toBe(pointer)
  })

  it.each(['foo', 'a/b', '/a~2', '/a~', '/~x'])('refuses %j', (pointer) => {
    expect(() => parsePointer(pointer)).toThrow(JsonPointerError)
  })
})

describe('applyJsonPatch (RFC 6902 Appendix A)', () => {
  const cases: Array<[string, JsonValue, JsonPatchOperation[], JsonValue]> = [
    ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 move a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    ['A.7 move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['copy', { a: { b: [1] } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: [1] }, c: { b: [1] } }],
    ['replace the root', { a: 1 }, [{ op: 'replace', path: '', value: [1] }], [1]],
  ]
  it.each(cases)('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected)
  })

  it.each([
    ['A.9 a failed test', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], /test failed/],
    ['A.12 add to a non-existent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], /no member "baz"/],
    ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], /test failed/],
    ['an index past the end', { a: [1] }, [{ op: 'add', path: '/a/2', value: 0 }], /not an index from 0 to 1/],
    ['a leading zero index', { a: [1, 2] }, [{ op: 'remove', path: '/a/01' }], /no element "01"/],
    ['a malformed pointer', { a: 1 }, [{ op: 'remove', path: 'a' }], /must be empty or start with/],
    ['moving into a child', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], /own child/],
  ] as Array<[string, JsonValue, JsonPatchOperation[], RegExp]>)('refuses %s', (_name, doc, patch, message) => {
    expect(() => applyJsonPatch(doc, patch)).toThrow(message)
    expect(() => applyJsonPatch(doc, patch)).toThrow(JsonPatchError)
  })

  it('never changes the document it is given', () => {
    const doc = { a: [1, 2], b: { c: 1 } }
    applyJsonPatch(doc, [{ op: 'remove', path: '/a/0' }, { op: 'add', path: '/b/d', value: 2 }])
    expect(doc).toEqual({ a: [1, 2], b: { c: 1 } })
  })

  it('treats "__proto__" as a plain member', () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}}') as JsonValue
    const out = applyJsonPatch(doc, [{ op: 'add', path: '/__proto__/y', value: 2 }]) as Record<string, unknown>
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1,"y":2}}')
    expect(({} as Record<string, unknown>).y).toBeUndefined()
  })
})

describe('diffJson', () => {
  it('escapes member names in paths', () => {
    expect(diffJson({}, { 'a/b': 1, 'm~n': 2 })).toEqual([
      { op: 'add', path: '/a~1b', value: 1 },
      { op: 'add', path: '/m~0n', value: 2 },
    ])
  })

  it('replaces on a change of type and at the root', () => {
    expect(diffJson({ a: [1] }, { a: { 0: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { 0: 1 } }])
    expect(diffJson(1, 'x')).toEqual([{ op: 'replace', path: '', value: 'x' }])
    expect(diffJson([1, 2], [1, 2])).toEqual([])
  })

  it('edits arrays element by element with indexes as the patch goes', () => {
    const a = ['x', 'a', 'b', 'c', 'd']
    const b = ['a', 'B', 'c', 'd', 'e', 'f']
    const patch = diffJson(a, b)
    expect(applyJsonPatch(a, patch)).toEqual(b)
    expect(patch.length).toBeLessThanOrEqual(4)
  })

  it('recurses into paired objects inside arrays', () => {
    expect(diffJson([{ id: 1, v: 'a' }], [{ id: 1, v: 'b' }])).toEqual([{ op: 'replace', path: '/0/v', value: 'b' }])
  })

  it('round-trips: apply(a, diff(a, b)) equals b for random JSON values', () => {
    const value = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as JsonValue)
    const arrays = fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom<JsonValue>({ k: 1 }, { k: 2 }, [0])), { maxLength: 12 })
    fc.assert(
      fc.property(fc.oneof(fc.tuple(value, value), fc.tuple(arrays, arrays)), ([a, b]) => {
        expect(applyJsonPatch(a, diffJson(a, b))).toEqual(b)
      }),
      { numRuns: 500 },
    )
  })
})
