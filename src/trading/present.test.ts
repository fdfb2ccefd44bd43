import { describe, expect, it } from 'vitest'
import { finite } from './present.js'

describe('finite', () => {
  it('turns non-finite numbers into null at any depth and leaves the rest', () => {
    expect(finite({ a: NaN, b: [1, Infinity], c: { d: -Infinity, e: 'x', f: null } })).toEqual({ a: null, b: [1, null], c: { d: null, e: 'x', f: null } })
  })
})
