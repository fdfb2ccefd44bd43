// Importing a CSV with curl as people first try it: `curl -d @file` strips the line breaks (and, without -H, sends a
// form), so the refusal says to use --data-binary; --data-binary imports.
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'

const host = listeningTestApp()
const file = join(mkdtempSync(join(tmpdir(), 'ncm-curl-csv-')), 'bars.csv')
writeFileSync(file, 'Date,Open,High,Low,Close,Volume\n2024-01-01,1,2,0.5,1.5,10\n2024-01-02,1.5,2,1,1.8,12\n2024-01-03,1.8,2,1,1.9,12\n')

async function curl(...args: string[]): Promise<{ status: number; body: any }> {
  const { stdout } = await promisify(execFile)('curl', ['-s', '-w', '\n%{http_code}', ...args])
  const cut = stdout.lastIndexOf('\n')
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) }
}

describe('CSV import with curl', () => {
  it('curl -d with text/csv: the one-line CSV is refused with the --data-binary hint', async () => {
    const res = await curl('-d', `@${file}`, '-H', 'content-type: text/csv', `${host.base}/api/v11/datasets?symbol=CURLD`)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('invalid_input')
    expect(res.body.line_breaks).toMatch(/--data-binary @file\.csv/)
    expect(res.body.detail).toMatch(/curl -d. strips line breaks/)
  })

  it('curl -d without a content type (a form) is refused naming --data-binary', async () => {
    const res = await curl('-d', `@${file}`, `${host.base}/api/v11/datasets?symbol=CURLF`)
    expect(res.status).toBe(400)
    expect(res.body.detail).toMatch(/--data-binary @file\.csv/)
  })

  it('curl --data-binary imports', async () => {
    const res = await curl('--data-binary', `@${file}`, '-H', 'content-type: text/csv', `${host.base}/api/v11/datasets?symbol=CURLB`)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.dataset.rows).toBe(3)
  })
})
