// GPU presets: the bytes a program can allocate on each card, and what the runtime takes before the model does.
import type { DeviceSpec } from './fit.js'

const MiB = 2 ** 20

export interface GpuPreset {
  id: string
  name: string
  compute_capability: string
  /** cudaDeviceProp.totalGlobalMem (torch.cuda.get_device_properties().total_memory): less than nvidia-smi shows. */
  total_bytes: number
  /** How total_bytes is known: measured here, or a published reading of the same property. */
  total_source: string
  /** How far total_bytes may differ on another driver (readings of one card differ by a few MiB). */
  total_uncertainty_bytes: number
  /** Device memory the CUDA context takes outside PyTorch's allocator. */
  cuda_context_bytes: number
  cuda_context_source: string
}

/** The H100 context figure: measured; the other cards take it as an estimate, which is said in their source. */
export const H100_CONTEXT_BYTES = 527 * MiB
export const H100_MEASURED =
  'measured on H100 80GB HBM3, torch 2.11, transformers 5.17, peft 0.21, CUDA 13.0 — issue #29'
const CONTEXT_ESTIMATE =
  `not measured on this card: the H100 figure (${H100_CONTEXT_BYTES / MiB} MiB, ${H100_MEASURED}) is used; the ` +
  'context grows with the driver, the CUDA version and the kernels loaded, so treat it as ±100 MiB'

const published = (text: string) => `cudaGetDeviceProperties total memory as printed by torch/deviceQuery: ${text}`

export const GPU_PRESETS: readonly GpuPreset[] = Object.freeze([
  {
    id: 'h100-sxm-80gb',
    name: 'NVIDIA H100 80GB HBM3 (SXM)',
    compute_capability: '9.0',
    total_bytes: 85_017_493_504,
    total_source: `${H100_MEASURED} (torch.cuda.get_device_properties(0).total_memory = 85,017,493,504 = 79.18 GiB)`,
    total_uncertainty_bytes: 11 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: `${H100_MEASURED}: about 527 MiB of device memory outside PyTorch's allocator`,
  },
  {
    id: 'h100-pcie-80gb',
    name: 'NVIDIA H100 PCIe 80GB',
    compute_capability: '9.0',
    total_bytes: 81_008 * MiB,
    total_source: published("_CudaDeviceProperties(name='NVIDIA H100 PCIe', major=9, minor=0, total_memory=81008MB, multi_processor_count=114) (public-code index)"),
    total_uncertainty_bytes: 12 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
  {
    id: 'h200-141gb',
    name: 'NVIDIA H200 141GB',
    compute_capability: '9.0',
    total_bytes: 143_156 * MiB,
    total_source: published("_CudaDeviceProperties(name='NVIDIA H200', major=9, minor=0, total_memory=143156MB, multi_processor_count=132) (public-code index)"),
    total_uncertainty_bytes: 12 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
  {
    id: 'a100-80gb',
    name: 'NVIDIA A100 80GB',
    compute_capability: '8.0',
    total_bytes: 81_049 * MiB,
    total_source: published('"NVIDIA A100 80GB PCIe … Total global mem: 81049 MB" (ekondis/mixbench issue #47, driver 12.30); the SXM4 80GB part has the same HBM2e and is assumed equal'),
    total_uncertainty_bytes: 16 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
  {
    id: 'a100-40gb',
    name: 'NVIDIA A100-SXM4-40GB',
    compute_capability: '8.0',
    total_bytes: 42_298_834_944,
    total_source: published('deviceQuery "NVIDIA A100-SXM4-40GB … Total amount of global memory: 40339 MBytes (42298834944 bytes)" (bottlerocket-os/bottlerocket PR #3873, driver 12.2)'),
    total_uncertainty_bytes: 200 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
  {
    id: 'l40s',
    name: 'NVIDIA L40S',
    compute_capability: '8.9',
    total_bytes: 45_589 * MiB,
    total_source: published("_CudaDeviceProperties(name='NVIDIA L40S', major=8, minor=9, total_memory=45589MB, multi_processor_count=142) (public-code index)"),
    total_uncertainty_bytes: 16 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
  {
    id: 'rtx-4090',
    name: 'NVIDIA GeForce RTX 4090',
    compute_capability: '8.9',
    total_bytes: 24_563 * MiB,
    total_source: published("_CudaDeviceProperties(name='NVIDIA GeForce RTX 4090', major=8, minor=9, total_memory=24563MB, multi_processor_count=128) (public-code index); a display attached to the card takes more"),
    total_uncertainty_bytes: 16 * MiB,
    cuda_context_bytes: H100_CONTEXT_BYTES,
    cuda_context_source: CONTEXT_ESTIMATE,
  },
])

export const GPU_IDS = GPU_PRESETS.map((g) => g.id) as [string, ...string[]]

export const findGpu = (id: string): GpuPreset | undefined => GPU_PRESETS.find((g) => g.id === id)

/** PyTorch's default cuBLAS workspace per handle and stream, by compute capability. */
export function cublasWorkspaceBytes(computeCapability: string | null): number {
  const major = computeCapability === null ? 9 : Number(computeCapability.split('.')[0])
  return major >= 9 && major <= 12 ? 32 * MiB : 4096 * 1024 * 2 + 16 * 1024 * 8
}

export const CUBLAS_WORKSPACE_SOURCE =
  'pytorch/pytorch aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize: ":4096:2:16:8 default, 32MiB ' +
  'for Hopper and Blackwell" (4096·8·1024 bytes for compute capability 9-12, 4096·1024·2 + 16·1024·8 otherwise); ' +
  `taken through PyTorch's allocator at the first matmul (32 MiB seen after one AdamW step, ${H100_MEASURED})`

/** `count` cards of a preset, with the runtime's own components, as the fit engines take them. */
export const gpuDeviceSpec = (g: GpuPreset, count: number): DeviceSpec => ({
  count,
  total_bytes: g.total_bytes,
  cuda_context_bytes: g.cuda_context_bytes,
  cuda_context_source: g.cuda_context_source,
  cublas_workspace_bytes: cublasWorkspaceBytes(g.compute_capability),
  cublas_workspace_source: CUBLAS_WORKSPACE_SOURCE,
})
