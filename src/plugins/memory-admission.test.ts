import { describe, expect, it } from 'vitest'
import { Refusal } from '../http/refusal.js'
import { createMemoryAdmission } from './memory-admission.js'

const admission = () => createMemoryAdmission({ largeBytes: 10, totalBytes: 30, perClientBytes: 20, slowClientMs: 1000 })

function refusalOf(fn: () => unknown): Refusal {
  try {
    fn()
  } catch (err) {
    return err as Refusal
  }
  throw new Error('not refused')
}

describe('memory admission', () => {
  it('reserves per client and in total, refusing occupied with Retry-After and the limit that was reached', () => {
    const memory = admission()
    const a1 = memory.reserveAnswer('a')
    memory.reserve('a', 10, 'body')
    const own = refusalOf(() => memory.reserve('a', 1, 'body'))
    expect(own).toBeInstanceOf(Refusal)
    expect(own).toMatchObject({ code: 'occupied', statusCode: 503, options: { retryAfterS: 1, hints: { limit: 'MEMORY_PER_CLIENT_BYTES', value: 20 } } })
    memory.reserveAnswer('b')
    const total = refusalOf(() => memory.reserve('c', 5, 'answer'))
    expect(total.options.hints).toEqual({ limit: 'MEMORY_ADMISSION_BYTES', value: 30 })
    expect(memory.held()).toBe(30)
    expect(memory.held('a')).toBe(20)
    expect(memory.refused()).toBe(2)
    // A release counts once, however many paths call it.
    a1()
    a1()
    expect(memory.held()).toBe(20)
    expect(memory.held('a')).toBe(10)
    expect(memory.reserve('c', 5, 'answer')).toBeTypeOf('function')
    expect(memory.reserveAnswer('c', 5)).toBeTypeOf('function')
    expect(memory.held('c')).toBe(10)
    memory.close()
  })
})
