// asData: what readers that need data (MCP's structured content, a rendering) make of an answer with written parts.
import { describe, expect, it } from 'vitest'
import { asData, collectWritten, WrittenJson } from './written-json.js'

describe('asData', () => {
  it('parses written text back wherever it sits, and leaves a value without any as it is', () => {
    expect(asData(new WrittenJson(['{"a":', '[1,2]}']))).toEqual({ a: [1, 2] })
    const nested = { mode: 'json', patch: new WrittenJson(['[{"op":"remove","path":"/k"}]']), hunks: [{ parts: new WrittenJson(['[]']) }] }
    expect(asData(nested)).toEqual({ mode: 'json', patch: [{ op: 'remove', path: '/k' }], hunks: [{ parts: [] }] })
    const plain = { model: Array.from({ length: 200_000 }, (_, i) => i) }
    expect(asData(plain)).toBe(plain)
  })
})

describe('collectWritten', () => {
  async function* of(...parts: string[]) {
    yield* parts
  }

  it('encodes a text of several parts, or of one long part, for the reply; a short one stays text', async () => {
    expect((await collectWritten(of('[1,', '2]'))).bytes?.map(String)).toEqual(['[1,', '2]'])
    const long = JSON.stringify('x'.repeat(70_000))
    const one = await collectWritten(of(long))
    expect(one.bytes?.map(String)).toEqual([long])
    expect(one.payload()).not.toBeTypeOf('string')
    expect((await collectWritten(of('{"a":1}'))).payload()).toBe('{"a":1}')
  })
})
