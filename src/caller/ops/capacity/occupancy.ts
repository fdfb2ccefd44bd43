// POST /occupancy: the CUDA occupancy calculator, rule for rule as NVIDIA's cuda_occupancy.h.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { COMPUTE_CAPABILITIES, CUDA_DEVICE_SOURCES, CUDA_DEVICES } from '../../../engines/capacity/cuda-devices.js'
import { carveoutSteps, factorsOf, maxActiveBlocksPerSm, type OccupancyFactor } from '../../../engines/capacity/occupancy.js'

const STATIC_SMEM_MAX = 48 * 1024

const input = z
  .object({
    compute_capability: z.string().regex(/^\d{1,2}\.\d$/, 'like "9.0"').describe(`One of ${COMPUTE_CAPABILITIES.join(', ')}`),
    threads_per_block: z.number().int().min(1).max(1024),
    registers_per_thread: z.number().int().min(0).max(255).describe('As reported by ptxas / cudaFuncAttributes.numRegs'),
    shared_mem_static_bytes: z
      .number()
      .int()
      .min(0)
      .max(STATIC_SMEM_MAX, 'static shared memory is limited to 48 KiB per block; larger allocations must be dynamic')
      .default(0),
    shared_mem_dynamic_bytes: z.number().int().min(0).max(16 * 1024 * 1024).default(0),
    carveout_percent: z
      .number()
      .int()
      .min(0)
      .max(100)
      .optional()
      .describe('cudaFuncAttributePreferredSharedMemoryCarveout; omitted = no preference'),
    max_dynamic_shared_bytes: z
      .number()
      .int()
      .min(0)
      .max(16 * 1024 * 1024)
      .optional()
      .describe('cudaFuncAttributeMaxDynamicSharedMemorySize the kernel set; defaults to shared_mem_dynamic_bytes'),
    block_barriers: z.number().int().min(0).max(16).default(1).describe('Block barriers the kernel uses (CC ≥ 9.0 limits them)'),
  })
  .strict()

const limit = z.number().int().nullable()
const factor = z.enum(['warps', 'registers', 'shared_memory', 'blocks', 'barriers'])

const output = z.object({
  compute_capability: z.string(),
  device: z.object({
    parts: z.string(),
    max_threads_per_block: z.number().int(),
    max_threads_per_sm: z.number().int(),
    registers_per_sm: z.number().int(),
    registers_per_block: z.number().int(),
    shared_mem_per_sm: z.number().int(),
    shared_mem_per_block: z.number().int(),
    shared_mem_per_block_optin: z.number().int(),
    reserved_shared_mem_per_block: z.number().int(),
    carveout_steps_kib: z.array(z.number().int()),
  }),
  active_blocks_per_sm: z.number().int(),
  active_warps_per_sm: z.number().int(),
  max_warps_per_sm: z.number().int(),
  occupancy: z.number().min(0).max(1),
  limiter: factor,
  limiters: z.array(factor),
  limits: z.object({ warps: limit, registers: limit, shared_memory: limit, blocks: limit, barriers: limit }),
  warps_per_block: z.number().int(),
  allocated_registers_per_block: z.number().int(),
  allocated_shared_mem_per_block: z.number().int(),
  shared_mem_per_sm_used: z.number().int().nullable(),
  notes: z.array(z.string()),
})

const finite = (n: number) => (Number.isFinite(n) ? n : null)

export const occupancy = defineOperation({
  name: 'occupancy',
  method: 'POST',
  path: '/occupancy',
  lobe: 'capacity',
  caption: 'CUDA occupancy: active blocks and warps per SM and what limits them',
  summary:
    'Implements cudaOccMaxActiveBlocksPerMultiprocessor of cuda_occupancy.h (CUDA 13.0) for compute capabilities ' +
    `${COMPUTE_CAPABILITIES.join(', ')}: warps, per-CC block caps, registers allocated per warp in 256-register units ` +
    'over 4 sub-partitions, shared memory with its allocation granularity, the per-block driver reservation and carveout ' +
    'steps, and block barriers from CC 9.0. Checked case by case against the header compiled with g++. A limit is null ' +
    'when that resource imposes no cap at all (the header reports INT_MAX: no registers used, no shared memory needed ' +
    'before CC 8.0, barriers not applicable). Refuses unknown compute capabilities, listing the supported ones.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: CUDA_DEVICE_SOURCES,
  examples: [
    { compute_capability: '9.0', threads_per_block: 256, registers_per_thread: 32 },
    {
      compute_capability: '8.0',
      threads_per_block: 128,
      registers_per_thread: 64,
      shared_mem_static_bytes: 4096,
      shared_mem_dynamic_bytes: 65536,
      carveout_percent: 50,
    },
  ],
  handler: (i) => {
    const device = CUDA_DEVICES[i.compute_capability]
    if (!device) {
      throw new Refusal('invalid_input', `compute capability ${i.compute_capability} is not supported`, {
        issues: [{ path: 'compute_capability', message: `supported: ${COMPUTE_CAPABILITIES.join(', ')}` }],
        hints: { supported: COMPUTE_CAPABILITIES },
      })
    }
    const r = maxActiveBlocksPerSm(device, {
      threadsPerBlock: i.threads_per_block,
      registersPerThread: i.registers_per_thread,
      sharedMemStaticBytes: i.shared_mem_static_bytes,
      sharedMemDynamicBytes: i.shared_mem_dynamic_bytes,
      carveoutPercent: i.carveout_percent ?? null,
      maxDynamicSharedBytes: i.max_dynamic_shared_bytes,
      blockBarriers: i.block_barriers,
    })
    if (r.status !== 'ok') {
      // The schema keeps inputs inside what the header accepts; reaching here is a bug, not a caller error.
      throw new Error(`occupancy calculator answered ${r.status} for a validated input`)
    }
    const limiters = factorsOf(r.limitingFactors)
    const maxWarps = device.maxThreadsPerMultiprocessor / device.warpSize
    const activeWarps = r.activeBlocksPerSm * r.warpsPerBlock
    const notes = [
      `registers: ${i.registers_per_thread} per thread × 32 lanes rounded up to 256 per warp = ${r.warpsPerBlock ? r.allocatedRegistersPerBlock / r.warpsPerBlock : 0} per warp`,
      `shared memory per block: ${i.shared_mem_static_bytes} static + ${i.shared_mem_dynamic_bytes} dynamic + ` +
        `${device.reservedSharedMemPerBlock} reserved, rounded up to ${device.major >= 8 ? 128 : 256} B = ${r.allocatedSharedMemPerBlock} B`,
    ]
    notes.push(
      'limits are blocks per SM each resource allows; null means that resource imposes no cap at all (no registers ' +
        'used, no shared memory needed before CC 8.0, or the barrier rule does not apply below CC 9.0)',
    )
    if (r.activeBlocksPerSm === 0) notes.push('no block of this kernel can run on an SM of this compute capability')
    const primary: OccupancyFactor = limiters[0] ?? 'blocks'
    return {
      compute_capability: device.computeCapability,
      device: {
        parts: device.parts,
        max_threads_per_block: device.maxThreadsPerBlock,
        max_threads_per_sm: device.maxThreadsPerMultiprocessor,
        registers_per_sm: device.regsPerMultiprocessor,
        registers_per_block: device.regsPerBlock,
        shared_mem_per_sm: device.sharedMemPerMultiprocessor,
        shared_mem_per_block: device.sharedMemPerBlock,
        shared_mem_per_block_optin: device.sharedMemPerBlockOptin,
        reserved_shared_mem_per_block: device.reservedSharedMemPerBlock,
        carveout_steps_kib: carveoutSteps(device) ?? [],
      },
      active_blocks_per_sm: r.activeBlocksPerSm,
      active_warps_per_sm: activeWarps,
      max_warps_per_sm: maxWarps,
      occupancy: activeWarps / maxWarps,
      limiter: primary,
      limiters,
      limits: {
        warps: finite(r.limits.warps),
        registers: finite(r.limits.registers),
        shared_memory: finite(r.limits.sharedMemory),
        blocks: finite(r.limits.blocks),
        barriers: finite(r.limits.barriers),
      },
      warps_per_block: r.warpsPerBlock,
      allocated_registers_per_block: r.allocatedRegistersPerBlock,
      allocated_shared_mem_per_block: r.allocatedSharedMemPerBlock,
      shared_mem_per_sm_used: r.sharedMemPerSmUsed,
      notes,
    }
  },
})
