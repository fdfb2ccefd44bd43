// /skills and /skills.md: the host's own documents, written once per host and sent as those bytes after; the Markdown's
// JSON form carries the same text as the text/markdown rendering, front matter included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, okData } from '../helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

describe('skills', () => {
  it('lists every operation once, the same bytes on every answer', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/v1/skills' })
    const again = await app.inject({ method: 'GET', url: '/api/v1/skills' })
    expect(again.body).toBe(first.body)
    const { tools } = okData<{ tools: Array<{ name: string; inputSchema: object }> }>(first)
    const ops = okData<{ operations: Array<{ name: string }> }>(await app.inject({ method: 'GET', url: '/api/v1/ops' })).operations
    expect(tools.map((t) => t.name).sort()).toEqual(ops.map((o) => o.name).sort())
  })

  it('/skills.md as JSON holds the Markdown the text rendering sends, with its front matter', async () => {
    const text = await app.inject({ method: 'GET', url: '/api/v1/skills.md' })
    expect(text.headers['content-type']).toMatch(/^text\/markdown/)
    const asJson = okData<{ markdown: string; tools: number }>(await app.inject({ method: 'GET', url: '/api/v1/skills.md', headers: { accept: 'application/json' } }))
    expect(asJson.markdown).toBe(text.body)
    expect(asJson.markdown).toMatch(/^---\nsurface: marketing-caller\n[\s\S]*occupancy: live-bound\n[\s\S]*---\n\n# NCM Hub skills\n/)
    expect(asJson.markdown).toContain('```json')
    expect(asJson.tools).toBeGreaterThan(10)
    expect(asJson.markdown.length).toBeGreaterThan(64 * 1024)
  })
})
