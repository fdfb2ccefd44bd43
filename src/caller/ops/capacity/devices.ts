// The devices of a capacity question: a GPU preset with its real usable bytes, or declared memory, and the runtime's share.
import { z } from 'zod'
import { Refusal } from '../../../http/refusal.js'
import {
  CUBLAS_WORKSPACE_SOURCE, cublasWorkspaceBytes, findGpu, GPU_IDS, gpuDeviceSpec, H100_CONTEXT_BYTES, H100_MEASURED,
  type GpuPreset,
} from '../../../engines/capacity/devices.js'
import type { DeviceSpec } from '../../../engines/capacity/fit.js'
import { CAPACITY_LIMITS, GIB } from './common.js'

export const devicesInput = z
  .object({
    count: z.number().int().min(1, 'at least one device is needed').max(CAPACITY_LIMITS.max_devices),
    memory_gib: z.number().positive().max(CAPACITY_LIMITS.max_device_memory_gib).optional().describe('Memory of each device in GiB'),
    gpu: z.enum(GPU_IDS).optional().describe('A GPU preset with its real usable bytes (instead of memory_gib)'),
  })
  .strict()

export const deviceOutput = z.object({
  count: z.number().int(),
  memory_gib: z.number(),
  gpu: z.string().nullable(),
  name: z.string(),
  total_bytes: z.number(),
  total_source: z.string(),
  compute_capability: z.string().nullable(),
  cuda_context_bytes: z.number(),
  cublas_workspace_bytes: z.number(),
})

export interface ResolvedDevices {
  spec: DeviceSpec
  gpu: GpuPreset | null
  fact: z.output<typeof deviceOutput>
}

/** A GPU preset (its measured or published bytes) or declared memory, with the runtime's own components. */
export function resolveDevices(d: z.output<typeof devicesInput>): ResolvedDevices {
  if ((d.gpu === undefined) === (d.memory_gib === undefined)) {
    throw new Refusal('invalid_input', 'give devices.gpu (a preset) or devices.memory_gib, not both and not neither', {
      issues: [{ path: 'devices', message: 'exactly one of gpu and memory_gib' }],
      hints: { gpus: GPU_IDS },
    })
  }
  const gpu = d.gpu === undefined ? null : findGpu(d.gpu)!
  const total = gpu ? gpu.total_bytes : Math.floor(d.memory_gib! * GIB)
  const cc = gpu ? gpu.compute_capability : null
  const spec: DeviceSpec = gpu
    ? gpuDeviceSpec(gpu, d.count)
    : {
        count: d.count,
        total_bytes: total,
        cuda_context_bytes: H100_CONTEXT_BYTES,
        cuda_context_source: `device not named: the H100 CUDA context (${H100_CONTEXT_BYTES / 2 ** 20} MiB, ${H100_MEASURED}) is assumed`,
        cublas_workspace_bytes: cublasWorkspaceBytes(null),
        cublas_workspace_source: `${CUBLAS_WORKSPACE_SOURCE}; device not named: the larger (Hopper/Blackwell) size is assumed`,
      }
  return {
    spec,
    gpu,
    fact: {
      count: d.count,
      memory_gib: total / GIB,
      gpu: gpu?.id ?? null,
      name: gpu?.name ?? 'declared device',
      total_bytes: total,
      total_source: gpu ? gpu.total_source : 'declared by the caller: memory_gib × 2^30 bytes (use devices.gpu for a card\'s real usable bytes)',
      compute_capability: cc,
      cuda_context_bytes: spec.cuda_context_bytes,
      cublas_workspace_bytes: spec.cublas_workspace_bytes,
    },
  }
}

