// A start that fails on a bad ADMIN_TOKEN says which variable is wrong and never prints its value.
import { describe, expect, it } from 'vitest'
import { startServer } from './process.js'

describe('a failed start', () => {
  it('names ADMIN_TOKEN and its length, never its value', async () => {
    for (const name of ['ADMIN_TOKEN', 'NCM_ADMIN_TOKEN']) {
      const server = startServer({ [name]: 'tooShortSecret', PORT: '0', DATABASE_PATH: ':memory:' }, { compiled: true })
      const { code } = await server.exited
      expect(code).not.toBe(0)
      const output = server.stdout() + server.stderr()
      expect(output).toContain('ADMIN_TOKEN=<14 characters, not shown>')
      expect(output).not.toContain('tooShortSecret')
    }
  })
})
