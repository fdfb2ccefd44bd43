import { describe, expect, it } from 'vitest'
import { Piscina } from 'piscina'
import { moving, postable } from './moving.js'

describe('an answer that moves its buffers', () => {
  it('is posted as piscina\'s movable wrapper listing them, and seen as is by a direct caller', () => {
    const bytes = new Uint8Array(8)
    const answer = moving({ text: bytes, n: 1 }, [bytes.buffer])
    expect(answer).toEqual({ text: bytes, n: 1 })
    const posted = postable(answer) as Record<symbol, unknown>
    expect(posted[Piscina.transferableSymbol]).toEqual([bytes.buffer])
    expect(posted[Piscina.valueSymbol]).toBe(answer)
  })

  it('leaves any other answer as it is', () => {
    const plain = { n: 1 }
    expect(postable(plain)).toBe(plain)
    expect(postable(null)).toBe(null)
    expect(postable(moving({ n: 2 }, []))).toEqual({ n: 2 })
  })
})
