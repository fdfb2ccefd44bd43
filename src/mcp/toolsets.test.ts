import { describe, expect, it } from 'vitest'
import { Refusal } from '../http/refusal.js'
import { DEFAULT_TOOLSETS, parseToolsets, requestedToolsets, TOOLSETS, toolsetOf } from './toolsets.js'

describe('toolsets', () => {
  it('groups by surface, access and lobe', () => {
    expect(toolsetOf({ surface: 'trading' })).toBe('trading')
    expect(toolsetOf({ surface: 'trading', lobe: 'discovery', adminOnly: true })).toBe('trading')
    expect(toolsetOf({ surface: 'caller', lobe: 'access', adminOnly: true })).toBe('admin')
    expect(toolsetOf({ surface: 'caller', lobe: 'discovery' })).toBe('discovery')
    expect(toolsetOf({ surface: 'caller', lobe: 'logic' })).toBe('caller')
  })

  it('parses a selection: default when absent, all, names in their fixed order; unknown names refused', () => {
    expect(parseToolsets(undefined)).toEqual(DEFAULT_TOOLSETS)
    expect(parseToolsets(' ')).toEqual(DEFAULT_TOOLSETS)
    expect(parseToolsets('all')).toEqual(TOOLSETS)
    expect(parseToolsets('Admin, caller')).toEqual(['caller', 'admin'])
    expect(() => parseToolsets('caller,nope')).toThrow(Refusal)
    expect(() => parseToolsets('x'.repeat(201))).toThrow(/at most 200/)
  })

  it('takes the query over the header, and refuses a repeated parameter', () => {
    expect(requestedToolsets({ toolsets: 'trading' }, 'admin')).toEqual(['trading'])
    expect(requestedToolsets({}, 'admin')).toEqual(['admin'])
    expect(() => requestedToolsets({ toolsets: ['a', 'b'] }, undefined)).toThrow(/once/)
  })
})
