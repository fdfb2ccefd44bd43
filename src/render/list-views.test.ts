// The list views: short ids as git abbreviates, ages, the view's columns, --columns and --wide, and tables cut to a width.
import { describe, expect, it } from 'vitest'
import { age, duration, listTable, shortIds } from './list-views.js'
import { PLAIN, renderCells } from './render.js'

const NOW = Date.parse('2026-11-27T12:00:00Z')
const job = (id: string, state: string, minutesAgo: number) => ({
  id, op: 'sat', state, progress: { fraction: 0.5, phase: 'search', done: 3, total: 6, eta_s: null, counters: {} },
  created_at: new Date(NOW - minutesAgo * 60_000).toISOString(), started_at: new Date(NOW - minutesAgo * 60_000).toISOString(),
  finished_at: null, result_url: null, refuse: null, attempts: 1, url: `/api/v1/jobs/${id}`, events_url: `/api/v1/jobs/${id}/events`,
})

describe('list views', () => {
  it('short ids: 8 characters, longer only where two ids share them', () => {
    const ids = ['229efb26-aaaa-4000-8000-000000000000', '229efb26-abbb-4000-8000-000000000000', '31c0ffee-0000-4000-8000-000000000000']
    expect([...shortIds(ids).values()]).toEqual(['229efb26-aa', '229efb26-ab', '31c0ffee'])
  })

  it('ages and durations in their largest whole unit', () => {
    expect(age(new Date(NOW - 45_000).toISOString(), NOW)).toBe('45s')
    expect(age(new Date(NOW - 12 * 60_000).toISOString(), NOW)).toBe('12m')
    expect(age(new Date(NOW - 3 * 3600_000).toISOString(), NOW)).toBe('3h')
    expect(age(new Date(NOW - 5 * 86400_000).toISOString(), NOW)).toBe('5d')
    expect(age('not a time', NOW)).toBeNull()
    expect([duration(400), duration(12_000), duration(185_000), duration(7_800_000)]).toEqual(['0.4s', '12s', '3m05s', '2h10m'])
  })

  it('jobs: the view\'s columns; --columns picks fields by dotted path; --wide adds every other field', () => {
    const rows = [job('229efb26-aaaa-4000-8000-000000000000', 'running', 2)]
    const view = listTable('jobs', rows, { width: 120, now: NOW })
    expect(view.header).toEqual(['id', 'op', 'state', 'progress', 'took', 'age'])
    expect(view.rows[0]).toEqual(['229efb26', 'sat', 'running', '50% 3/6 search', '2m00s', '2m'])
    expect(listTable('jobs', rows, { width: 120, now: NOW, columns: ['id', 'progress.phase', 'attempts'] }).rows[0]).toEqual(['229efb26', 'search', 1])
    const wide = listTable('jobs', rows, { width: 120, now: NOW, wide: true }).header
    expect(wide.slice(0, 6)).toEqual(view.header)
    expect(wide).toEqual(expect.arrayContaining(['progress.fraction', 'events_url', 'attempts']))
  })

  it('a list without a view shows its fields', () => {
    expect(listTable('fills', [{ id: 1, price: 2.5, at: 'x' }], { width: 120, now: NOW }).header).toEqual(['id', 'price', 'at'])
  })

  it('a table wider than the terminal: the widest columns are cut first, then columns left out, saying which', () => {
    const header = ['id', 'text', 'more']
    const cells = [[1, 'x'.repeat(60), 'y'.repeat(30)]]
    const cut = renderCells(header, cells, PLAIN, 60).split('\n')
    for (const line of cut) expect(line.length).toBeLessThanOrEqual(60)
    expect(cut[1]).toMatch(/^ 1  x+…  y+/)
    const dropped = renderCells(header, cells, PLAIN, 20).split('\n')
    for (const line of dropped.slice(0, -1)) expect(line.length).toBeLessThanOrEqual(20)
    expect(dropped.at(-1)).toMatch(/more column/)
  })
})
