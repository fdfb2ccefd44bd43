import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { LaneSequencer } from './test/lanes/sequencer.js'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Most files wait on sockets and child processes more than they compute: one worker more than cores (at least 3),
    // while the heavy files (test/lanes/heavy.ts) take turns in a lane of their own. `--maxWorkers` overrides.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    setupFiles: ['test/lanes/heavy-lane.ts'],
    sequence: { sequencer: LaneSequencer },
    // The fuzz test compares RSS before and after its run: it needs a real GC between.
    execArgv: ['--expose-gc'],
    // Hosts the tests spawn as processes inherit it: a large answer written on their event loop fails too.
    env: { LOOP_TRIPWIRE: 'throw' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
