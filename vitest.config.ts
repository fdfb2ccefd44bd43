import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // The fuzz test compares RSS before and after its run: it needs a real GC between.
    execArgv: ['--expose-gc'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
