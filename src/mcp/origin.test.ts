import { describe, expect, it } from 'vitest'
import { originMayUseMcp } from './origin.js'

const config = { publicUrl: null, host: '0.0.0.0', port: 8000, corsOrigins: [] as string[] }
const on = (localPort?: number) => ({ socket: { localPort } }) as never

describe('originMayUseMcp', () => {
  it('allows loopback origins on the port the request arrived at, and nothing else by default', () => {
    expect(originMayUseMcp('http://localhost:8000', on(8000), config)).toBe(true)
    expect(originMayUseMcp('http://127.0.0.1:8000', on(8000), config)).toBe(true)
    expect(originMayUseMcp('http://[::1]:8000', on(8000), config)).toBe(true)
    expect(originMayUseMcp('http://LOCALHOST:8000', on(8000), config)).toBe(true)
    expect(originMayUseMcp('http://localhost:8001', on(8000), config)).toBe(false)
    expect(originMayUseMcp('https://localhost:8000', on(8000), config)).toBe(false)
    expect(originMayUseMcp('http://evil.example:8000', on(8000), config)).toBe(false)
    expect(originMayUseMcp('null', on(8000), config)).toBe(false)
    expect(originMayUseMcp('file://', on(8000), config)).toBe(false)
  })

  it('uses the configured port when the socket has none, and the listen address when it is specific', () => {
    expect(originMayUseMcp('http://localhost:8000', on(), config)).toBe(true)
    expect(originMayUseMcp('http://10.0.0.5:8000', on(8000), { ...config, host: '10.0.0.5' })).toBe(true)
    expect(originMayUseMcp('http://10.0.0.5:8000', on(8000), config)).toBe(false)
  })

  it('allows PUBLIC_URL\'s origin (default port or not) and CORS_ORIGINS', () => {
    const behindProxy = { ...config, publicUrl: 'https://hub.example.org/ncm' }
    expect(originMayUseMcp('https://hub.example.org', on(8000), behindProxy)).toBe(true)
    expect(originMayUseMcp('https://hub.example.org:443', on(8000), behindProxy)).toBe(true)
    expect(originMayUseMcp('http://hub.example.org', on(8000), behindProxy)).toBe(false)
    expect(originMayUseMcp('https://app.example.com', on(8000), { ...config, corsOrigins: ['https://app.example.com'] })).toBe(true)
  })
})
