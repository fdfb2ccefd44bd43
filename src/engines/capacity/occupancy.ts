// CUDA occupancy: cudaOccMaxActiveBlocksPerMultiprocessor of cuda_occupancy.h (CUDA 13.0), rule for rule.
import type { CudaDevice } from './cuda-devices.js'

/** What one kernel launch asks of an SM. */
export interface KernelLaunch {
  threadsPerBlock: number
  registersPerThread: number
  sharedMemStaticBytes: number
  sharedMemDynamicBytes: number
  /** cudaFuncAttributePreferredSharedMemoryCarveout in percent, or null for no preference. */
  carveoutPercent: number | null
  /**
   * The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. The runtime refuses a launch whose dynamic shared
   * memory exceeds it; a kernel that launches with N bytes must have set at least N, so N is the default.
   */
  maxDynamicSharedBytes?: number
  /** Block barriers the kernel uses; cudaFuncAttributes-derived attributes carry 1. */
  blockBarriers?: number
}

export type OccupancyFactor = 'warps' | 'registers' | 'shared_memory' | 'blocks' | 'barriers'

/** Bits of cudaOccLimitingFactor. */
export const FACTOR_BITS: Readonly<Record<OccupancyFactor, number>> = {
  warps: 0x01,
  registers: 0x02,
  shared_memory: 0x04,
  blocks: 0x08,
  barriers: 0x10,
}

export interface OccupancyLimits {
  warps: number
  /** Infinity when the kernel uses no registers (the header's INT_MAX). */
  registers: number
  /** Infinity when the block needs no shared memory at all (the header's INT_MAX; only possible before CC 8.0). */
  sharedMemory: number
  blocks: number
  /** Infinity when the barrier rule does not apply (CC < 9.0 or no barriers used). */
  barriers: number
}

export type OccupancyStatus = 'ok' | 'invalid_input' | 'unknown_device'

export interface OccupancyResult {
  status: OccupancyStatus
  activeBlocksPerSm: number
  /** The header's bitmask: every factor whose limit equals the final block count. */
  limitingFactors: number
  limits: OccupancyLimits
  warpsPerBlock: number
  allocatedRegistersPerBlock: number
  allocatedSharedMemPerBlock: number
  /** Shared memory per SM the calculation used (the carveout actually selected), or null if not reached. */
  sharedMemPerSmUsed: number | null
}

const CARVEOUT_DEFAULT = -1

const roundUp = (x: number, y: number): number => y * Math.ceil(x / y)

function smemAllocationGranularity(major: number): number | null {
  if (major >= 3 && major <= 7 && major !== 4) return 256
  if (major >= 8 && major <= 12) return 128
  return null
}

function regAllocationMaxPerThread(major: number): number | null {
  if (major === 3 || major === 5 || major === 6) return 255
  if (major >= 7 && major <= 12) return 256
  return null
}

function maxBlocksPerSm(d: CudaDevice): number | null {
  switch (d.major) {
    case 7:
      return d.minor === 5 ? 16 : 32
    case 8:
      return d.minor === 0 ? 32 : d.minor === 9 ? 24 : 16
    case 9:
      return 32
    case 10:
      return d.minor === 1 ? 24 : 32
    case 11:
      return d.minor === 0 ? 24 : 32
    case 12:
      return 24
    default:
      return null
  }
}

/** The shared-memory carveout sizes (KiB) a CC supports; a request is rounded up to the next one. */
export function carveoutSteps(d: CudaDevice): number[] | null {
  const base = [0, 8, 16, 32, 64]
  switch (d.major) {
    case 7:
      return d.minor === 5 ? [32, 64] : [...base, 96]
    case 8:
      return d.minor === 0 || d.minor === 7 ? [...base, 100, 132, 164] : [...base, 100]
    case 9:
      return [...base, 100, 132, 164, 196, 228]
    case 10:
    case 11:
      return [0, 1, 3].includes(d.minor) ? [...base, 100, 132, 164, 196, 228] : null
    case 12:
      return [0, 1].includes(d.minor) ? [...base, 100] : null
    default:
      return null
  }
}

type Aligned = { ok: true; bytes: number } | { ok: false; status: OccupancyStatus }

function alignUpCarveout(bytes: number, d: CudaDevice): Aligned {
  const steps = carveoutSteps(d)
  if (!steps) return { ok: false, status: 'unknown_device' }
  for (const kib of steps) if (bytes <= kib * 1024) return { ok: true, bytes: kib * 1024 }
  return { ok: false, status: 'invalid_input' }
}

function barriersAvailable(d: CudaDevice, blockCap: number): number | null {
  switch (d.major) {
    case 8:
      return d.minor === 0 ? blockCap * 2 : blockCap
    case 9:
      return blockCap * 2
    case 10:
      return d.minor === 1 ? blockCap : blockCap * 2
    case 11:
      return d.minor === 0 ? blockCap : blockCap * 2
    case 12:
      return blockCap
    default:
      return d.major >= 5 && d.major <= 7 ? blockCap * 2 : null
  }
}

function failed(status: OccupancyStatus, warpsPerBlock = 0): OccupancyResult {
  return {
    status,
    activeBlocksPerSm: 0,
    limitingFactors: 0,
    limits: { warps: 0, registers: 0, sharedMemory: 0, blocks: 0, barriers: 0 },
    warpsPerBlock,
    allocatedRegistersPerBlock: 0,
    allocatedSharedMemPerBlock: 0,
    sharedMemPerSmUsed: null,
  }
}

export function maxActiveBlocksPerSm(d: CudaDevice, k: KernelLaunch): OccupancyResult {
  if (k.threadsPerBlock <= 0 || k.registersPerThread < 0) return failed('invalid_input')
  const warpsPerBlock = Math.ceil(k.threadsPerBlock / d.warpSize)
  const regGranularity = d.major >= 3 && d.major <= 12 && d.major !== 4 ? 256 : null
  const maxRegs = regAllocationMaxPerThread(d.major)
  const smemGranularity = smemAllocationGranularity(d.major)
  const blockCap = maxBlocksPerSm(d)
  if (regGranularity === null || maxRegs === null || smemGranularity === null || blockCap === null) {
    return failed('unknown_device', warpsPerBlock)
  }

  // Registers: allocated per warp, per sub-partition (4 on every CC this calculator supports).
  const subPartitions = 4
  const regsPerWarp = roundUp(k.registersPerThread * d.warpSize, regGranularity)
  const regsPerBlock = regsPerWarp * warpsPerBlock
  const regsAssumedPerBlock = regsPerWarp * roundUp(warpsPerBlock, subPartitions)
  let limitRegs: number
  if (d.regsPerBlock < regsAssumedPerBlock || d.regsPerBlock < regsPerBlock || k.registersPerThread > maxRegs) {
    limitRegs = 0
  } else if (regsPerWarp > 0) {
    const warpsPerSubPartition = Math.floor(Math.floor(d.regsPerMultiprocessor / subPartitions) / regsPerWarp)
    limitRegs = Math.floor((warpsPerSubPartition * subPartitions) / warpsPerBlock)
  } else {
    limitRegs = Infinity
  }

  const limitWarps =
    k.threadsPerBlock > d.maxThreadsPerBlock
      ? 0
      : Math.floor(Math.floor(d.maxThreadsPerMultiprocessor / d.warpSize) / warpsPerBlock)

  // Shared memory: the carveout preference is the SM's pool unless one block needs more.
  const carveout = k.carveoutPercent ?? CARVEOUT_DEFAULT
  if (carveout < CARVEOUT_DEFAULT || carveout > 100) return failed('invalid_input', warpsPerBlock)
  const preferred =
    carveout === CARVEOUT_DEFAULT
      ? d.sharedMemPerMultiprocessor
      : Math.floor((carveout * d.sharedMemPerMultiprocessor) / 100)
  const preference = alignUpCarveout(preferred, d)
  if (!preference.ok) return failed(preference.status, warpsPerBlock)

  const staticSmem = k.sharedMemStaticBytes + d.reservedSharedMemPerBlock
  const smemPerBlock = roundUp(staticSmem + k.sharedMemDynamicBytes, smemGranularity)
  const maxDynamic = k.maxDynamicSharedBytes ?? k.sharedMemDynamicBytes
  const maxSmemUsage = staticSmem + maxDynamic
  const perBlockLimit =
    (maxSmemUsage > d.sharedMemPerBlock ? d.sharedMemPerBlockOptin : d.sharedMemPerBlock) +
    (d.major >= 8 ? d.reservedSharedMemPerBlock : 0)
  let limitSmem: number
  let smemPerSm: number | null = null
  if (k.sharedMemDynamicBytes > maxDynamic || smemPerBlock > perBlockLimit) {
    limitSmem = 0
  } else {
    if (preference.bytes >= smemPerBlock) {
      smemPerSm = preference.bytes
    } else {
      const raised = alignUpCarveout(smemPerBlock, d)
      if (!raised.ok) return failed(raised.status, warpsPerBlock)
      smemPerSm = raised.bytes
    }
    limitSmem = smemPerBlock > 0 ? Math.floor(smemPerSm / smemPerBlock) : Infinity
  }

  const limits: OccupancyLimits = {
    warps: limitWarps,
    registers: limitRegs,
    sharedMemory: limitSmem,
    blocks: blockCap,
    barriers: Infinity,
  }
  let active = Math.min(limitRegs, limitSmem, limitWarps, blockCap)
  let factors = 0
  if (active === limitWarps) factors |= FACTOR_BITS.warps
  if (active === limitRegs) factors |= FACTOR_BITS.registers
  if (active === limitSmem) factors |= FACTOR_BITS.shared_memory
  if (active === blockCap) factors |= FACTOR_BITS.blocks

  // Block barriers count only from Hopper on.
  const barriersUsed = k.blockBarriers ?? 1
  if (d.major >= 9 && barriersUsed > 0) {
    const available = barriersAvailable(d, blockCap)
    if (available === null) return failed('unknown_device', warpsPerBlock)
    limits.barriers = Math.floor(available / barriersUsed)
    active = Math.min(limits.barriers, active)
    if (active === limits.barriers) factors |= FACTOR_BITS.barriers
  }

  return {
    status: 'ok',
    activeBlocksPerSm: active,
    limitingFactors: factors,
    limits,
    warpsPerBlock,
    allocatedRegistersPerBlock: regsPerBlock,
    allocatedSharedMemPerBlock: smemPerBlock,
    sharedMemPerSmUsed: smemPerSm,
  }
}

/** The factors named in a cudaOccLimitingFactor bitmask, in the header's bit order. */
export function factorsOf(mask: number): OccupancyFactor[] {
  return (Object.keys(FACTOR_BITS) as OccupancyFactor[]).filter((f) => (mask & FACTOR_BITS[f]) !== 0)
}
