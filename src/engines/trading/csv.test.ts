// CSV import: header forms, validation with line numbers, round trips of valid bars, the shared data files.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../version.js'
import { CsvError, parseOhlcvCsv, parseTimestamp } from './csv.js'
import { arbBars } from './test-bars.js'
import type { Bars } from './types.js'

const DATA = join(REPO_ROOT, '..', 'shared', 'data')

function toCsv(bars: Bars, header = 'Date,Open,High,Low,Close,Volume'): string {
  const rows = [header]
  for (let i = 0; i < bars.ts.length; i++) {
    rows.push([new Date(bars.ts[i]!).toISOString(), bars.open[i], bars.high[i], bars.low[i], bars.close[i], bars.volume[i]].join(','))
  }
  return rows.join('\n')
}

function errorOf(text: string): CsvError {
  try {
    parseOhlcvCsv(text)
  } catch (e) {
    if (e instanceof CsvError) return e
    throw e
  }
  throw new Error('expected a CsvError')
}

describe('parseOhlcvCsv', () => {
  it('reads an unnamed, lower-case or named date column, CRLF, a BOM and blank lines', () => {
    const body = '2020-01-02,10,11,9,10.5,100\r\n2020-01-03,10.5,12,10,11,200\r\n\r\n'
    for (const header of [',Open,High,Low,Close,Volume', 'date,open,high,low,close,volume', '\uFEFFDATE,OPEN,HIGH,LOW,CLOSE,VOLUME']) {
      const { bars, rows } = parseOhlcvCsv(`${header}\r\n${body}`)
      expect(rows).toBe(2)
      expect(bars.ts[1]).toBe(Date.UTC(2020, 0, 3))
      expect(Array.from(bars.close)).toEqual([10.5, 11])
    }
    expect(parseOhlcvCsv('Date,Open,High,Low,Close\n2020-01-02,1,2,0.5,1.5').bars.volume[0]).toBe(0)
  })

  it('accepts date-times, ISO with zone offsets and epoch seconds or milliseconds', () => {
    expect(parseTimestamp('2017-04-19 09:00:00')).toBe(Date.UTC(2017, 3, 19, 9))
    expect(parseTimestamp('2017-04-19T09:00:00Z')).toBe(Date.UTC(2017, 3, 19, 9))
    expect(parseTimestamp('2017-04-19T11:00:00+02:00')).toBe(Date.UTC(2017, 3, 19, 9))
    expect(parseTimestamp('1492592400')).toBe(Date.UTC(2017, 3, 19, 9))
    expect(parseTimestamp('1492592400000')).toBe(Date.UTC(2017, 3, 19, 9))
    expect(parseTimestamp('2021-02-30')).toBeNull()
    expect(parseTimestamp('yesterday')).toBeNull()
  })

  it('reports each bad row with its file line number and the reason', () => {
    const text = [
      'Date,Open,High,Low,Close,Volume', // 1
      '2020-01-02,10,11,9,10.5,100', // 2
      '', // 3 (blank, still counted)
      '2020-01-03,10,9,9,10,100', // 4: high below open
      '2020-01-03,10,11,9,10,100', // 5: not after the previous row
      '2020-01-06,-1,11,9,10,100', // 6: negative open
      '2020-01-07,10,11,10.5,10.2,100', // 7: low above min(open, close)
      'not-a-date,10,11,9,10,100', // 8
      '2020-01-08,10,11,9', // 9: too few fields
      '2020-01-09,10,11,9,10,-5', // 10: negative volume
      '2020-01-10,10,11,9,abc,5', // 11
    ].join('\n')
    const err = errorOf(text)
    expect(err.issues.map((i) => i.line)).toEqual([4, 5, 6, 7, 8, 9, 10, 11])
    expect(err.issues[0]!.message).toMatch(/high 9 is below max\(open, close\) 10/)
    expect(err.issues[1]!.message).toMatch(/not after the previous row/)
    expect(err.issues[2]!.message).toMatch(/open must be positive/)
    expect(err.issues[3]!.message).toMatch(/low 10.5 is above/)
    expect(err.issues[4]!.message).toMatch(/unreadable date/)
    expect(err.issues[5]!.message).toMatch(/expected 6 fields, found 4/)
    expect(err.issues[6]!.message).toMatch(/volume/)
    expect(err.issues[7]!.message).toMatch(/close "abc" is not a decimal number/)
    expect(err.message).toMatch(/^line 4: /)
  })

  it('refuses a header without the price columns and a file without rows', () => {
    expect(errorOf('Date,Price\n2020-01-01,1').issues[0]).toMatchObject({ line: 1, message: expect.stringMatching(/missing open, high, low, close/) })
    expect(errorOf('Date,Open,High,Low,Close,Volume\n').issues[0]!.message).toMatch(/no data rows/)
    expect(errorOf('').issues[0]!.line).toBe(1)
  })

  it('round-trips any valid bars, and a corrupted row is reported at its own line', () => {
    fc.assert(fc.property(arbBars(1, 60), fc.nat(), fc.constantFrom('low', 'high', 'order', 'price'), (bars, at, kind) => {
      const text = toCsv(bars)
      const parsed = parseOhlcvCsv(text).bars
      expect(Array.from(parsed.ts)).toEqual(Array.from(bars.ts))
      expect(Array.from(parsed.close)).toEqual(Array.from(bars.close))
      expect(Array.from(parsed.low)).toEqual(Array.from(bars.low))

      const row = at % bars.ts.length
      const lines = text.split('\n')
      const cells = lines[row + 1]!.split(',')
      if (kind === 'low') cells[3] = String(Math.min(Number(cells[1]), Number(cells[4])) * 1.5)
      if (kind === 'high') cells[2] = String(Math.max(Number(cells[1]), Number(cells[4])) * 0.5)
      if (kind === 'price') cells[4] = '0'
      if (kind === 'order') cells[0] = '1999-01-01T00:00:00.000Z'
      lines[row + 1] = cells.join(',')
      if (kind === 'order' && row === 0) return // the first row has nothing before it
      expect(errorOf(lines.join('\n')).issues[0]!.line).toBe(row + 2)
    }), { numRuns: 200 })
  })

  describe.skipIf(!existsSync(DATA))('the shared data files (needs ../shared/data)', () => {
    it('GOOG.csv: 2148 daily bars from 2004-08-19 to 2013-03-01', () => {
      const { bars, rows } = parseOhlcvCsv(readFileSync(join(DATA, 'GOOG.csv'), 'utf8'))
      expect(rows).toBe(2148)
      expect(bars.ts[0]).toBe(Date.UTC(2004, 7, 19))
      expect(bars.ts[rows - 1]).toBe(Date.UTC(2013, 2, 1))
    })
    it('EURUSD.csv: 5000 hourly bars', () => {
      const { bars, rows } = parseOhlcvCsv(readFileSync(join(DATA, 'EURUSD.csv'), 'utf8'))
      expect(rows).toBe(5000)
      expect(bars.ts[0]).toBe(Date.UTC(2017, 3, 19, 9))
    })
  })
})

describe('strict dates and numbers (issue #13 item 8)', () => {
  const utc = (year: number, month = 1, day = 1) => {
    const d = new Date(0)
    d.setUTCFullYear(year, month - 1, day)
    return d.getTime()
  }

  it('keeps years 0000–0099 as written instead of shifting them to 1900–1999', () => {
    expect(parseTimestamp('0050-03-01')).toBe(utc(50, 3, 1))
    expect(new Date(parseTimestamp('0000-01-01')!).getUTCFullYear()).toBe(0)
    expect(new Date(parseTimestamp('0099-12-31T23:59:59Z')!).getUTCFullYear()).toBe(99)
    expect(parseTimestamp('0004-02-29')).toBe(utc(4, 2, 29))
    expect(parseTimestamp('0000-02-29')).toBe(utc(0, 2, 29)) // year 0 is a leap year, 1900 is not
    expect(parseTimestamp('0001-02-29')).toBeNull()
  })

  it('refuses impossible offsets, leap seconds and sub-millisecond fractions; accepts real ones', () => {
    for (const cell of ['2024-01-01T00:00:00+99:99', '2024-01-01T00:00:00+14:01', '2024-01-01T00:00:00-05:60', '2024-06-30T23:59:60Z', '2024-01-01T00:00:00.0001Z', '1700000000.0001', '1700000000000.5']) {
      expect(parseTimestamp(cell), cell).toBeNull()
    }
    expect(parseTimestamp('2024-01-01T00:00:00+14:00')).toBe(Date.parse('2024-01-01T00:00:00+14:00'))
    expect(parseTimestamp('2024-01-01T05:30:00+0530')).toBe(Date.parse('2024-01-01T00:00:00Z'))
    expect(parseTimestamp('2024-01-01T00:00:00.123000Z')).toBe(Date.parse('2024-01-01T00:00:00.123Z'))
    expect(parseTimestamp('1700000000.5')).toBe(1_700_000_000_500)
  })

  it('refuses hex, binary, Infinity and values a double cannot hold as written, naming the line', () => {
    const csv = (price: string) => `Date,Open,High,Low,Close,Volume\n2024-01-01,1,2,0.5,1.5,10\n2024-01-02,${price},2,0.5,1.5,10\n`
    for (const price of ['0x10', '0b1', '0o7', 'Infinity', '1_0', '1e400', '1.00000000000000000001', '9007199254740993']) {
      const err = errorOf(csv(price))
      expect(err.issues[0]!.line, price).toBe(3)
      expect(err.issues[0]!.message, price).toMatch(/^open .*(not a decimal number|cannot be represented exactly)/)
    }
    // Plain decimals with an exponent or trailing zeros are exact as written.
    for (const price of ['1.50', '1.5e0', '0.000001e6', '+1']) expect(parseOhlcvCsv(csv(price)).bars.open[1], price).toBe(Number(price))
  })
})
