import { describe, expect, it } from 'vitest'
import { AsciiBytes } from './ascii-bytes.js'

describe('AsciiBytes', () => {
  it('appends past what it reserved, and hands over exactly the bytes written in a buffer of their own', () => {
    const out = new AsciiBytes(4)
    const pieces = Array.from({ length: 1000 }, (_, i) => `[${i},${i / 3}]`)
    for (const piece of pieces) out.put(piece)
    const bytes = out.done()
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength)
    expect(Buffer.from(bytes).toString('latin1')).toBe(pieces.join(''))
  })
})
