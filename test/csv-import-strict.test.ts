// Issue #13 item 8 over a real socket: CSV import never changes data silently. Years 0000–0099 stay as written; impossible
// offsets, hex prices and values a double cannot hold exactly are refused with their line.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from './helper.js'

const host = listeningTestApp()

const HEADER = 'Date,Open,High,Low,Close,Volume'

async function importCsv(symbol: string, rows: string[]) {
  const res = await request(`${host.base}/api/v11/datasets?symbol=${symbol}`, {
    method: 'POST', headers: { 'content-type': 'text/csv' }, body: [HEADER, ...rows].join('\n'),
  })
  return { status: res.statusCode, body: (await res.body.json()) as any }
}

describe('strict CSV import (item 8)', () => {
  it('stores year 0050 as 0050, not 1950, and infers a daily timeframe', async () => {
    const res = await importCsv('ANCIENT', ['0050-01-01,1,2,0.5,1.5,10', '0050-01-02,1.5,2,1,1.8,12', '0050-01-03,1.8,2,1,1.9,12'])
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.dataset.first_ts).toBe('0050-01-01T00:00:00.000Z')
    expect(res.body.dataset.timeframe).toBe('1d')
  })

  it.each([
    ['an offset of +99:99', '2024-01-02T00:00:00+99:99,1.5,2,1,1.8,12', /unreadable date/],
    ['a hex price', '2024-01-02,0x10,20,1,1.8,12', /open "0x10" is not a decimal number/],
    ['a price a double cannot hold exactly', '2024-01-02,1.00000000000000000001,2,1,1.8,12', /open .* cannot be represented exactly/],
    ['a volume over 2^53', '2024-01-02,1.5,2,1,1.8,9007199254740993', /volume .* cannot be represented exactly/],
  ])('refuses %s with its line number and stores nothing', async (_what, row, message) => {
    const res = await importCsv('STRICT', ['2024-01-01,1,2,0.5,1.5,10', row])
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('invalid_input')
    expect(res.body.bad_rows[0].line).toBe(3)
    expect(res.body.bad_rows[0].message).toMatch(message)
    const datasets = (await (await request(`${host.base}/api/v11/datasets`)).body.json()) as any
    expect(JSON.stringify(datasets)).not.toContain('STRICT')
  })
})
