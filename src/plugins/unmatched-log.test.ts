// Unmatched requests are logged in bounded amounts: the first few of a window in full, then one summary line.
import { describe, expect, it } from 'vitest'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { UnmatchedRequestLog } from './unmatched-log.js'

function fakeLog() {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = []
  const log = { info: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) } as unknown as FastifyBaseLogger
  return { lines, log }
}

const request = (is404: boolean, log: FastifyBaseLogger) => ({ is404, server: { log } }) as unknown as FastifyRequest

describe('UnmatchedRequestLog', () => {
  it('logs the first `sampled` unmatched requests of a window, counts the rest into one summary line', async () => {
    const { lines, log } = fakeLog()
    const controller = new UnmatchedRequestLog({ windowMs: 50, sampled: 3 })
    const unmatched = Array.from({ length: 40 }, () => request(true, log))
    const disabled = unmatched.map((req) => controller.isLogDisabled(req))
    expect(disabled.filter((d) => !d)).toHaveLength(3)
    // The decision is made once per request: its completed line and "refused" line agree with its incoming line.
    expect(unmatched.map((req) => controller.isLogDisabled(req))).toEqual(disabled)
    expect(unmatched.map((req) => controller.isSuppressed(req))).toEqual(disabled)
    while (lines.length === 0) await new Promise((r) => setTimeout(r, 10))
    expect(lines).toHaveLength(1)
    expect(lines[0]!.fields).toEqual({ unmatched: 40, logged: 3, window_s: 0.05 })
    expect(lines[0]!.msg).toMatch(/^37 more requests matched no route/)
    // A new window logs its first ones again.
    expect(controller.isLogDisabled(request(true, log))).toBe(false)
  })

  it('never holds back requests that matched a route', () => {
    const { log } = fakeLog()
    const controller = new UnmatchedRequestLog({ windowMs: 60_000, sampled: 0 })
    for (let i = 0; i < 100; i++) expect(controller.isLogDisabled(request(false, log))).toBe(false)
    expect(controller.isLogDisabled(request(true, log))).toBe(true)
  })
})
