// The format of test/fixtures/occupancy/cases.json: what scripts/occupancy writes and the occupancy tests read.
import type { CudaDevice } from './cuda-devices.js'

/** One kernel launch, as the oracle and the /occupancy operation take it. */
export interface OccupancyCaseInput {
  compute_capability: string
  threads_per_block: number
  registers_per_thread: number
  shared_mem_static_bytes: number
  shared_mem_dynamic_bytes: number
  carveout_percent: number | null
  max_dynamic_shared_bytes: number
  block_barriers: number
}

/** cudaOccMaxActiveBlocksPerMultiprocessor's answer; INT_MAX (2147483647) means "no limit". */
export interface OccupancyCaseExpected {
  status: number
  active_blocks: number
  limiting_factors: number
  block_limit_regs: number
  block_limit_shared_mem: number
  block_limit_warps: number
  block_limit_blocks: number
  block_limit_barriers: number
  block_limit_virtual: number
  allocated_registers_per_block: number
  allocated_shared_mem_per_block: number
}

/** Device properties as the oracle prints them: the engine's table without the labels. */
export type OracleDeviceProps = Omit<CudaDevice, 'computeCapability' | 'major' | 'minor' | 'parts'> & { cc: string }

export interface OccupancyFixture {
  description: string
  generator: string
  oracle: string
  header: { path: string; sha256: string; cuda_occ_version: string }
  compiler: string | undefined
  seed: number
  devices: OracleDeviceProps[]
  cases: Array<{ input: OccupancyCaseInput; expected: OccupancyCaseExpected }>
}
