import { describe, expect, it } from 'vitest'
import { createInHand, IN_HAND_MAX_BYTES } from './local-runner.js'

describe('inputs kept in hand for runs not yet started', () => {
  it('keeps at most IN_HAND_MAX_BYTES in all: an input past it is not kept, and its run reads it back', () => {
    const inHand = createInHand()
    const quarter = IN_HAND_MAX_BYTES / 4
    for (const id of ['a', 'b', 'c', 'd', 'e']) inHand.keep(id, { id }, quarter)
    expect(inHand.bytes).toBe(IN_HAND_MAX_BYTES)
    expect(inHand.take('e')).toBeUndefined()
    expect(inHand.take('a')).toEqual({ input: { id: 'a' }, bytes: quarter })
    expect(inHand.take('a')).toBeUndefined()
    // what a started run took is room for the next submission's
    inHand.keep('f', { id: 'f' }, quarter)
    expect(inHand.take('f')?.input).toEqual({ id: 'f' })
    expect(inHand.bytes).toBe(IN_HAND_MAX_BYTES - quarter)
  })

  it('keeps one input once', () => {
    const inHand = createInHand()
    inHand.keep('a', 1, 10)
    inHand.keep('a', 2, 10)
    expect(inHand.bytes).toBe(10)
    expect(inHand.take('a')?.input).toBe(1)
  })
})
