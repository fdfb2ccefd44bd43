import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, redactedConfig } from './config.js'

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv/app')
    expect(c.host).toBe('127.0.0.1')
    expect(c.port).toBe(8000)
    expect(c.dataDir).toBe('/srv/app/data')
    expect(c.databasePath).toBe('/srv/app/data/ncm-hub.sqlite')
    expect(c.bodyLimitBytes).toBe(1024 * 1024)
    expect(c.largeBodyLimitBytes).toBe(16 * 1024 * 1024)
    expect(c.rateLimitPerMin).toBe(1200)
    expect(c.adminToken).toBeNull()
    expect(c.millThreads).toBeGreaterThanOrEqual(1)
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('sizes the memory admission from the older concurrency keys unless MEMORY_ADMISSION_BYTES is given', () => {
    const MiB = 2 ** 20
    expect(loadConfig({})).toMatchObject({ memoryAdmissionBytes: 192 * MiB, memoryPerClientBytes: 64 * MiB, slowClientMs: 30_000 })
    expect(loadConfig({ LARGE_BODY_CONCURRENCY: '1', LARGE_ANSWER_CONCURRENCY: '1' })).toMatchObject({ memoryAdmissionBytes: 32 * MiB, memoryPerClientBytes: 16 * MiB })
    expect(loadConfig({ MEMORY_ADMISSION_BYTES: String(300 * MiB), LARGE_BODY_CONCURRENCY: '1' })).toMatchObject({ memoryAdmissionBytes: 300 * MiB, memoryPerClientBytes: 100 * MiB })
    // A client's share is never more than the total.
    expect(loadConfig({ MEMORY_ADMISSION_BYTES: String(8 * MiB), MEMORY_PER_CLIENT_BYTES: String(9 * MiB) }).memoryPerClientBytes).toBe(8 * MiB)
  })

  it('accepts aliases, records them, and lets the canonical name win', () => {
    const c = loadConfig({ NCM_PORT: '9001', NCM_HOST: '0.0.0.0', DATABASE_PATH: ':memory:' })
    expect(c.port).toBe(9001)
    expect(c.host).toBe('0.0.0.0')
    expect(c.databasePath).toBe(':memory:')
    expect(c.aliasesUsed.map((a) => a.alias).sort()).toEqual(['DATABASE_PATH', 'NCM_HOST', 'NCM_PORT'])
    expect(loadConfig({ NCM_PORT: '9001', PORT: '9002' }).port).toBe(9002)
  })

  it('fails fast naming every bad variable', () => {
    expect(() => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud' })).toThrow(ConfigError)
    try {
      loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', ADMIN_TOKEN: 'short' })
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT="70000"/)
      expect((err as Error).message).toMatch(/LOG_LEVEL="loud"/)
      expect((err as Error).message).toMatch(/ADMIN_TOKEN=/)
    }
    expect(() => loadConfig({ RPC_ENDPOINTS: 'ftp://x' })).toThrow(/RPC_ENDPOINTS/)
  })

  it('never prints a bad ADMIN_TOKEN (nor its alias), only its length', () => {
    for (const env of [{ ADMIN_TOKEN: 'tooShortSecret' }, { NCM_ADMIN_TOKEN: 'tooShortSecret' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      try {
        loadConfig(env)
      } catch (err) {
        expect((err as Error).message).toContain('ADMIN_TOKEN=<14 characters, not shown>: must be at least 16 characters')
        expect((err as Error).message).not.toContain('tooShortSecret')
      }
    }
  })

  it('reads REDIS_URL (redis:// or rediss://) and REDIS_PREFIX; a password never shows, not even in a refusal', () => {
    expect(loadConfig({})).toMatchObject({ redisUrl: null, redisPrefix: 'ncm:' })
    const c = loadConfig({ REDIS_URL: 'redis://ops:s3cretPw@cache.internal:6380/2', REDIS_PREFIX: 'blue:' })
    expect(c).toMatchObject({ redisUrl: 'redis://ops:s3cretPw@cache.internal:6380/2', redisPrefix: 'blue:' })
    expect(redactedConfig(c)).toMatchObject({ REDIS_URL: 'redis://cache.internal:6380/2', REDIS_PREFIX: 'blue:' })
    expect(JSON.stringify(redactedConfig(c))).not.toContain('s3cretPw')
    expect(redactedConfig(loadConfig({})).REDIS_URL).toBe('unset')
    for (const bad of ['http://x:6379', 'cache.internal:6379', 'redis//x']) {
      expect(() => loadConfig({ REDIS_URL: bad }), bad).toThrow(/REDIS_URL/)
    }
    try {
      loadConfig({ REDIS_URL: 'http://u:leakyPw@x' })
    } catch (err) {
      expect((err as Error).message).not.toContain('leakyPw')
    }
    expect(() => loadConfig({ REDIS_PREFIX: 'has space' })).toThrow(/REDIS_PREFIX/)
  })

  it('reads PUBLIC_URL as an http(s) base without a trailing slash', () => {
    expect(loadConfig({}).publicUrl).toBeNull()
    expect(loadConfig({ PUBLIC_URL: 'https://ncm.example/' }).publicUrl).toBe('https://ncm.example')
    expect(loadConfig({ PUBLIC_URL: 'https://ops.example/ncm/' }).publicUrl).toBe('https://ops.example/ncm')
    for (const bad of ['ncm.example', 'ftp://x', 'https://u:p@x.example', 'https://x.example/?a=1']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/)
    }
  })

  it('redacts secrets', () => {
    const c = loadConfig({ ADMIN_TOKEN: 'a-very-secret-admin-token', RPC_ENDPOINTS: 'https://user:pw@rpc.example/v1?apikey=abc' })
    const shown = JSON.stringify(redactedConfig(c))
    expect(shown).not.toContain('a-very-secret-admin-token')
    expect(shown).not.toContain('pw@')
    expect(shown).not.toContain('abc')
    expect(redactedConfig(c).ADMIN_TOKEN).toBe('set')
  })

  it('reads DATABASE_URL as PostgreSQL only, shows it without credentials, and never echoes a bad one', () => {
    expect(loadConfig({}).databaseUrl).toBeNull()
    const c = loadConfig({ DATABASE_URL: 'postgresql://ncm:s3cret-pw@db.internal:5433/ncm?sslmode=require', DATABASE_POOL_MAX: '25' })
    expect(c).toMatchObject({ databaseUrl: 'postgresql://ncm:s3cret-pw@db.internal:5433/ncm?sslmode=require', databasePoolMax: 25, databaseConnectTimeoutMs: 5000 })
    expect(redactedConfig(c).DATABASE_URL).toBe('postgresql://db.internal:5433/ncm')
    expect(JSON.stringify(redactedConfig(c))).not.toContain('s3cret')
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:hunter2@x/db' })).toThrow(/DATABASE_URL=<\d+ characters, not shown>: must be a postgres/)
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:hunter2@x/db' })).not.toThrow(/hunter2/)
    expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/)
  })
})
