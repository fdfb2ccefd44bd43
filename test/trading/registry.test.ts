// The trading registry is the one table: every entry is a route of the host, every heavy entry a job, every `mcp`
// entry a tool and every `cli` entry a command; the table refuses two entries with one name, route or tool name.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { tradingRegistry, createTradingRegistry } from '../../src/trading/registry.js'
import { defineTradingOperation } from '../../src/trading/operation.js'
import { TRADING_TOOLS } from '../../src/mcp/tools.js'
import { TRADING_COMMANDS } from '../../src/cli/trading-commands.js'
import { buildTradingApp } from './helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTradingApp()
})
afterAll(async () => {
  await app?.close()
})

describe('the trading registry', () => {
  it('is exactly the routes under the platform\'s prefixes (jobs aside), and each of its root routes is served', () => {
    const table = app.routeTable.map((r) => `${r.method} ${r.url}`)
    const prefixed = app.routeTable.filter((r) => /^\/api\/v(11|10|6)\//.test(r.url) && !r.url.startsWith('/api/v11/jobs'))
      .map((r) => `${r.method} ${r.url}`).sort()
    expect(prefixed).toEqual(tradingRegistry.filter((op) => op.group !== 'root').map((op) => `${op.method} ${op.url}`).sort())
    for (const op of tradingRegistry.filter((o) => o.group === 'root')) expect(table).toContain(`${op.method} ${op.url}`)
  })

  it('projects heavy entries to jobs, mcp entries to tools and cli entries to commands', () => {
    expect(TRADING_TOOLS.map((t) => t.name).sort()).toEqual(tradingRegistry.filter((op) => op.mcp).map((op) => op.mcp!.name).sort())
    for (const tool of TRADING_TOOLS) {
      const op = tradingRegistry.find((o) => o.mcp?.name === tool.name)!
      expect(tool.job?.op).toBe(op.heavy ? op.name : undefined)
      expect(tool.route).toEqual({ method: op.method, path: op.url })
    }
    expect(TRADING_COMMANDS.map((c) => c.op.name).sort()).toEqual(tradingRegistry.filter((op) => op.cli).map((op) => op.cli!.name).sort())
    for (const op of tradingRegistry.filter((o) => o.heavy)) expect(op.method).toBe('POST')
  })

  it('fills path parameters of a command from its input and leaves the rest for the query or body', () => {
    const op = defineTradingOperation({
      name: 'x', method: 'GET', group: 'v11', path: '/runs/:id/trades', summary: 'x',
      params: z.object({ id: z.coerce.number() }), query: z.object({ limit: z.coerce.number().optional() }), output: z.unknown(),
      handler: () => null,
    })
    const command = TRADING_COMMANDS[0]!
    expect(command.request({}).path).toMatch(/^\/api\/v11\//)
    expect(op.url).toBe('/api/v11/runs/:id/trades')
    expect(Object.keys(op.input.shape).sort()).toEqual(['id', 'limit'])
  })

  it('refuses two entries with one name or one route', () => {
    const entry = (name: string, path: string) => defineTradingOperation({
      name, method: 'GET', group: 'v11', path, summary: name, output: z.unknown(), handler: () => null,
    })
    expect(() => createTradingRegistry([entry('a', '/a'), entry('a', '/b')])).toThrow(/named a/)
    expect(() => createTradingRegistry([entry('a', '/a'), entry('b', '/a')])).toThrow(/GET \/api\/v11\/a/)
    expect(() => defineTradingOperation({
      name: 'h', method: 'GET', group: 'v11', path: '/h', summary: 'h', output: z.unknown(), handler: () => null,
      heavy: { check: async () => undefined },
    })).toThrow(/only POST/)
  })
})
