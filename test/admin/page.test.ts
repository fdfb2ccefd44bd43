// GET /admin (the go-live page), GET /metrics and the command post, on an open host (no ADMIN_TOKEN).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'

describe('admin page and metrics on an open host', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => {
    await app.close()
  })

  it('/admin is server-rendered HTML with the stable ids, links and no outside resources', async () => {
    const res = await app.inject('/admin')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    for (const id of ['status', 'score', 'smoke-table', 'blockers', 'truth', 'metrics']) expect(res.body).toContain(`id="${id}"`)
    expect(res.body).toMatch(/<div id="status" data-status="(ready|blocked)">/)
    expect(res.body).toMatch(/<div id="score" data-score="\d{1,3}">\d{1,3}<\/div>/)
    expect(res.body).toContain('href="/docs"')
    expect(res.body).toContain('href="/reference"')
    for (const path of ['/admin', '/api/v1/admin/truth/summary', '/api/v1/admin/command-post/summary', '/api/v1/admin/go-live/overview']) {
      expect(res.body).toContain(`<code>${path}</code>`)
    }
    // No CDN: every src/href is same-origin.
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//)
  })

  it('shows the same score as the overview route', async () => {
    const page = (await app.inject('/admin')).body
    const report = json(await app.inject('/api/v1/admin/go-live/overview')).data
    expect(page).toContain(`data-score="${report.summary.readiness_score}"`)
    expect(page).toContain(`data-status="${report.summary.status}"`)
  })

  it('degrades to a readable message when a section cannot be read', async () => {
    const working = app.metrics.snapshot
    app.metrics.snapshot = () => {
      throw new Error('broken on purpose')
    }
    try {
      const res = await app.inject('/admin')
      expect(res.statusCode).toBe(200)
      expect(res.body).toMatch(/the metrics unavailable: internal: broken on purpose/)
      expect(res.body).toContain('id="status"')
    } finally {
      app.metrics.snapshot = working
    }
  })

  it('the command post is the metrics snapshot, enveloped', async () => {
    await app.inject('/no/such/route')
    const body = json(await app.inject('/api/v1/admin/command-post/summary'))
    expect(body).toMatchObject({ ok: true, invented_metrics: false })
    const s = body.data
    expect(s.requests.total).toBeGreaterThan(0)
    expect(Object.keys(s.requests.by_surface)).toEqual(['caller', 'trading', 'admin', 'docs'])
    expect(s.requests.by_route.some((r: any) => r.route === '(unmatched)' && r.status === 404)).toBe(true)
    expect(s.requests.by_route.some((r: any) => r.route === '/no/such/route')).toBe(false)
    expect(s.mill.threads).toBe(1)
    expect(s.database.file_bytes).toBeNull()
    expect(typeof s.event_loop.delay_ms).toBe('number')
    expect(s.latency.histogram).toMatch(/hdr-histogram-js/)
  })

  it('/metrics serves the same figures as Prometheus text', async () => {
    const res = await app.inject('/metrics')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(res.body).toMatch(/^# HELP ncm_http_requests_total /)
    expect(res.body).toMatch(/ncm_http_requests_total\{surface="admin",method="GET",route="\/api\/v1\/admin\/command-post\/summary",status="200"\} \d+/)
    expect(res.body).toContain('ncm_mill_threads 1')
  })
})
