import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { LaneSequencer } from './test/lanes/sequencer.js'
import { isStrayRedisClose } from './src/redis/stray-close.js'

const testFiles = ['src', 'test'].flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `${dir}/${name.replaceAll('\\', '/')}`))

/**
 * Files that run in a fresh process and module registry of their own: those that measure their process's memory (a
 * shared worker's history would be in it) and those that mock or stub (a mock would outlive its file in a shared
 * registry), decided from each file's own text. The others, heavy ones included, share their worker's modules from
 * file to file: loading the app's modules again for each file was about a third of the suite's time here (test/caller:
 * 168 s isolated, 108 s shared, on 2 workers).
 */
const ownRegistry = (file: string): boolean => /\bvi\.(mock|doMock|stub\w*|spyOn|useFakeTimers)\(|process\.memoryUsage/.test(readFileSync(file, 'utf8'))
const isolated = testFiles.filter(ownRegistry)

export default defineConfig({
  test: {
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
    // ioredis's close rejection that BullMQ leaves unhandled (src/redis/stray-close.ts) does not fail the run.
    onUnhandledError: (error) => !isStrayRedisClose(error),
    projects: [
      { extends: true, test: { name: 'shared', include: testFiles.filter((file) => !isolated.includes(file)), isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
})
