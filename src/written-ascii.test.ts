import { describe, expect, it } from 'vitest'
import { ASCII_PART_BYTES, writtenFromAscii } from './written-ascii.js'

describe('writtenFromAscii', () => {
  it('takes the bytes as parts of at most ASCII_PART_BYTES, a turn of the loop between, joined the whole text', async () => {
    const text = `[${Array.from({ length: 300_000 }, (_, i) => `[${i},${i / 7}]`).join(',')}]`
    const bytes = new TextEncoder().encode(text)
    let turns = 0
    let counting = true
    const count = () => { if (counting) { turns++; setImmediate(count) } }
    setImmediate(count)
    const written = await writtenFromAscii(bytes.subarray(0))
    counting = false
    expect(written.parts.length).toBe(Math.ceil(bytes.length / ASCII_PART_BYTES))
    expect(written.parts.every((part) => part.length <= ASCII_PART_BYTES)).toBe(true)
    expect(written.text()).toBe(text)
    expect(turns).toBeGreaterThanOrEqual(written.parts.length - 1)
  })

  it('a view into a larger buffer: only its own bytes', async () => {
    const bytes = new TextEncoder().encode('xx[1,2]yy')
    expect((await writtenFromAscii(bytes.subarray(2, 7))).text()).toBe('[1,2]')
  })
})
