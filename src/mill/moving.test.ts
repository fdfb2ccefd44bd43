import { describe, expect, it } from 'vitest'
import { Piscina } from 'piscina'
import { movable, moving, postable } from './moving.js'

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

describe('bytes sent to a task by moving them', () => {
  it('move a view that is its whole buffer as it is, and copy a slice first (its buffer stays here)', () => {
    const whole = new Uint8Array([1, 2, 3])
    const pooled = Buffer.from('small') // a slice of Node's pool
    const backing = new Uint8Array([9, 8, 7, 6])
    const slice = backing.subarray(1, 3)
    const { views, transfer } = movable([whole, pooled, slice, whole])
    expect(views[0]).toBe(whole)
    expect(views[1]).not.toBe(pooled)
    expect(Buffer.from(views[1]!).toString()).toBe('small')
    expect([...views[2]!]).toEqual([8, 7])
    // The same buffer twice is copied the second time (a transfer list names a buffer once).
    expect(views[3]).not.toBe(whole)
    expect(transfer).toHaveLength(4)
    expect(new Set(transfer)).toEqual(new Set(views.map((view) => view.buffer)))
    expect(transfer).not.toContain(pooled.buffer)
    expect(transfer).not.toContain(backing.buffer)
  })
})
