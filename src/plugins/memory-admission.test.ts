import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
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

  it('holds an answer of a known size until its response closes, at most a large answer\'s share', () => {
    const memory = admission()
    const response = () => Object.assign(new EventEmitter(), { destroyed: false, writableLength: 0, socket: null }) as unknown as ServerResponse
    const small = Array.from({ length: 5 }, response)
    for (const res of small) memory.holdUntilSent('a', res, 1)
    expect(memory.held('a')).toBe(5)
    // A size over the largest input's bytes reserves what every large answer reserved: refused past the client's share.
    const large = response()
    memory.holdUntilSent('b', large, 1_000)
    expect(memory.held('b')).toBe(10)
    const listeners = large.listenerCount('close')
    memory.holdUntilSent('b', large, 1_000)
    // Holds on one response share its close listener (a /run batch may read many pins).
    expect(large.listenerCount('close')).toBe(listeners)
    expect(refusalOf(() => memory.holdUntilSent('b', response(), 1))).toMatchObject({ code: 'occupied', options: { retryAfterS: 1, hints: { limit: 'MEMORY_PER_CLIENT_BYTES' } } })
    for (const res of small) res.emit('close')
    large.emit('close')
    expect(memory.held()).toBe(0)
    // A response already gone gives its reservation back at once.
    const gone = Object.assign(response(), { destroyed: true })
    memory.holdUntilSent('c', gone, 5)
    expect(memory.held()).toBe(0)
    memory.close()
  })
})
