// Mill tasks of the runtime domain: the WASM race, timed inside a worker so the event loop never waits on it.
import type { TaskContext, TaskTable } from '../types.js'
import { generateBytes, runRace, type RaceKernel, type RaceResult } from '../../engines/race/index.js'

export interface RacePayload {
  /** The caller's bytes, or null to generate `generate.bytes` bytes from `generate.seed`. */
  data: Uint8Array | null
  generate: { bytes: number; seed: number } | null
  rounds: number
  kernels: RaceKernel[]
  wasm: Uint8Array | null
}

export type { RaceResult }

export const runtimeTasks = {
  'runtime.race': (p: RacePayload, { deadline }: TaskContext): RaceResult => {
    const bytes = p.data ?? generateBytes(p.generate!.bytes, p.generate!.seed)
    return runRace({
      bytes,
      rounds: p.rounds,
      kernels: p.kernels,
      wasm: p.wasm,
      timer: process.hrtime.bigint,
      expired: () => Date.now() > deadline,
    })
  },
} satisfies TaskTable
