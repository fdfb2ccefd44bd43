import { afterAll, describe, expect, it } from 'vitest'
import { JsonBytes } from '../json/bytes.js'
import { createMill } from '../mill/pool.js'
import { MCP_INLINE_ANSWER_CHARS, toolAnswer, type AnswerReading } from './tool-answer.js'

const mill = createMill({ threads: 1, maxQueue: 4 })
afterAll(() => mill.close())

const link = { resultUrl: null, route: 'POST http://host/api/v1/tool' }
const render = (value: unknown) => `rendered ${JSON.stringify(value).length}`
/** Counts what the mill was asked to read. */
function reading(tripwire = true): AnswerReading & { asked: number } {
  const counted = {
    asked: 0,
    owner: 'client', tripwire, tool: 'tool',
    mill: { run: ((...args: Parameters<typeof mill.run>) => { counted.asked++; return mill.run(...args) }) as typeof mill.run },
  }
  return counted
}

describe('an MCP tool answer', () => {
  it('is inlined as it is when small, without the mill', async () => {
    const at = reading()
    const result = await toolAnswer({ status: 'SAT', model: [1, -2] }, link, render, at)
    expect(result.structuredContent).toEqual({ status: 'SAT', model: [1, -2] })
    expect(at.asked).toBe(0)
  })

  it('written as bytes over the inline size, is read in the mill: inlined when its characters fit', async () => {
    const text = JSON.stringify({ text: 'é😀 wide\n'.repeat(6_500) })
    expect(Buffer.byteLength(text)).toBeGreaterThan(MCP_INLINE_ANSWER_CHARS)
    expect(text.length).toBeLessThanOrEqual(MCP_INLINE_ANSWER_CHARS)
    const at = reading()
    const result = await toolAnswer(JsonBytes.of(text), link, render, at)
    expect(result.structuredContent).toEqual(JSON.parse(text))
    expect(at.asked).toBe(1)
  })

  it('written as bytes over the inline size in characters, is linked with its short members kept', async () => {
    const answer = { status: 'SAT', model: Array.from({ length: 20_000 }, (_, i) => i + 1), verified: true }
    const at = reading()
    const result = await toolAnswer(JsonBytes.of(JSON.stringify(answer)), link, render, at)
    expect(result.structuredContent).toMatchObject({
      inlined: false, answer_chars: JSON.stringify(answer).length, max_inline_chars: MCP_INLINE_ANSWER_CHARS,
      route: link.route, answer: { status: 'SAT', verified: true },
      omitted: [{ member: 'model', chars: JSON.stringify(answer.model).length }], omitted_more: 0,
    })
    expect((result.content[0] as { text: string }).text).toMatch(/^The answer is \d+ characters of JSON.*POST http:\/\/host\/api\/v1\/tool/s)
  })

  it('handed over as a value over the inline size, trips the loop rule under test, and is linked otherwise', async () => {
    const answer = { model: Array.from({ length: 20_000 }, (_, i) => i + 1) }
    await expect(toolAnswer(answer, link, render, reading(true))).rejects.toThrow(/loop tripwire: MCP tool tool answered a value/)
    const result = await toolAnswer(answer, link, render, reading(false))
    expect(result.structuredContent).toMatchObject({ inlined: false, omitted: [{ member: 'model' }] })
  })
})
