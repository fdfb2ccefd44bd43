// One Accept negotiation for every route with a representation besides JSON: q-values, specificity, defaults.
import { describe, expect, it } from 'vitest'
import { negotiate } from './negotiate.js'

describe('negotiate (Accept)', () => {
  const offered = ['application/json', 'text/csv']
  it('answers the first offer without Accept, with a blank one or with */*', () => {
    expect(negotiate(undefined, offered)).toBe('application/json')
    expect(negotiate('  ', offered)).toBe('application/json')
    expect(negotiate('*/*', offered)).toBe('application/json')
    expect(negotiate('*/*', ['text/plain; charset=utf-8', 'application/json'])).toBe('text/plain; charset=utf-8')
  })

  it('answers the best q among the offers, whatever order the Accept lists them in', () => {
    expect(negotiate('text/csv', offered)).toBe('text/csv')
    expect(negotiate('TEXT/CSV', offered)).toBe('text/csv')
    expect(negotiate('application/json;q=0.5, text/csv', offered)).toBe('text/csv')
    expect(negotiate('text/csv;q=0.2, */*;q=0.9', offered)).toBe('application/json')
    expect(negotiate('application/json;q=0.1, text/csv;q=0.9', offered)).toBe('text/csv')
  })

  it('a more specific range decides over a wider one, q=0 included', () => {
    expect(negotiate('text/*', offered)).toBe('text/csv')
    expect(negotiate('text/csv, application/json;q=0', offered)).toBe('text/csv')
    expect(negotiate('application/json;q=0, */*', offered)).toBe('text/csv')
    expect(negotiate('text/*;q=0.5, application/*;q=0.4', offered)).toBe('text/csv')
  })

  it('equal q: the order of the Accept, then the order of the offers', () => {
    expect(negotiate('text/csv, application/json', offered)).toBe('text/csv')
    expect(negotiate('application/json, text/csv', offered)).toBe('application/json')
    expect(negotiate('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', ['text/plain', 'application/json'])).toBe('text/plain')
  })

  it('matches an offer on its type and subtype, and answers it with its parameters', () => {
    expect(negotiate('application/json;q=0.1, text/plain;q=0.9', ['text/plain; charset=utf-8', 'application/json'])).toBe('text/plain; charset=utf-8')
  })

  it('answers null when nothing offered is acceptable', () => {
    expect(negotiate('image/png', offered)).toBeNull()
    expect(negotiate('text/csv;q=0', ['text/csv'])).toBeNull()
    expect(negotiate('text/csv;q=nope', ['text/csv'])).toBeNull()
    expect(negotiate('*/*', [])).toBeNull()
  })
})
