// asData: what readers that need data (MCP's structured content, a rendering) make of an answer with written parts.
import { describe, expect, it } from 'vitest'
import { asData, WrittenJson } from './written-json.js'

describe('asData', () => {
  it('parses written text back wherever it sits, and leaves a value without any as it is', () => {
    expect(asData(new WrittenJson(['{"a":', '[1,2]}']))).toEqual({ a: [1, 2] })
    const nested = { mode: 'json', patch: new WrittenJson(['[{"op":"remove","path":"/k"}]']), hunks: [{ parts: new WrittenJson(['[]']) }] }
    expect(asData(nested)).toEqual({ mode: 'json', patch: [{ op: 'remove', path: '/k' }], hunks: [{ parts: [] }] })
    const plain = { model: Array.from({ length: 200_000 }, (_, i) => i) }
    expect(asData(plain)).toBe(plain)
  })
})
