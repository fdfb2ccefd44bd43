import { describe, expect, it } from 'vitest'
import { isStrayRedisClose } from './stray-close.js'

describe('isStrayRedisClose', () => {
  it("is ioredis's close rejection, from its close handler, and nothing else", () => {
    const stray = Object.assign(new Error('Connection is closed.'), {
      stack: 'Error: Connection is closed.\n    at close (/app/node_modules/ioredis/built/redis/event_handler.js:214:25)',
    })
    expect(isStrayRedisClose(stray)).toBe(true)
    expect(isStrayRedisClose(new Error('Connection is closed.'))).toBe(false)
    expect(isStrayRedisClose(Object.assign(new Error('other'), { stack: stray.stack }))).toBe(false)
    expect(isStrayRedisClose('Connection is closed.')).toBe(false)
    expect(isStrayRedisClose(null)).toBe(false)
  })
})
