// Label values escaped as a Prometheus scraper reads them back.
import { describe, expect, it } from 'vitest'
import { escapeLabel } from './prometheus.js'

describe('Prometheus text', () => {
  it('escapes label values', () => {
    expect(escapeLabel('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd')
  })
})
