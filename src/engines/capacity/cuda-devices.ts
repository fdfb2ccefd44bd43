// Per-compute-capability device limits, as cudaGetDeviceProperties reports them, for the occupancy calculator.

export interface CudaDevice {
  computeCapability: string
  major: number
  minor: number
  /** Typical parts of this compute capability (for people, not for the arithmetic). */
  parts: string
  maxThreadsPerBlock: number
  maxThreadsPerMultiprocessor: number
  regsPerBlock: number
  regsPerMultiprocessor: number
  warpSize: number
  /** Default per-block limit (no opt-in). */
  sharedMemPerBlock: number
  sharedMemPerMultiprocessor: number
  /** Per-block limit once a kernel opts in (cudaFuncAttributeMaxDynamicSharedMemorySize). */
  sharedMemPerBlockOptin: number
  /** Shared memory the driver reserves for every block (CC ≥ 8.0). */
  reservedSharedMemPerBlock: number
}

export const CUDA_DEVICE_SOURCES = [
  'CUDA Programming Guide 13.x §5.1.3 "Features and Technical Specifications", Tables 30-32 ' +
    '(https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html): threads, blocks, ' +
    'registers and shared memory per SM and per block for CC 7.5-12.x',
  'NVIDIA/cccl libcudacxx/include/cuda/__device/arch_traits.h @ 571f2fc3: sm_70 limits (absent from the CUDA 13 guide) ' +
    'and reserved_shared_memory_per_block (1 KiB from sm_80)',
  '/usr/local/cuda-13.0/include/cuda_occupancy.h (CUDA 13.0, __CUDA_OCC_MAJOR__ 12, __CUDA_OCC_MINOR__ 1): ' +
    'allocation granularities, block caps, register sub-partitions, carveout steps, barrier limits',
]

const KiB = 1024

function device(
  cc: string,
  parts: string,
  maxThreadsPerMultiprocessor: number,
  smemPerSmKiB: number,
  optinKiB: number,
  reserved: number,
): CudaDevice {
  const [major, minor] = cc.split('.').map(Number) as [number, number]
  return {
    computeCapability: cc,
    major,
    minor,
    parts,
    maxThreadsPerBlock: 1024,
    maxThreadsPerMultiprocessor,
    regsPerBlock: 64 * KiB,
    regsPerMultiprocessor: 64 * KiB,
    warpSize: 32,
    sharedMemPerBlock: 48 * KiB,
    sharedMemPerMultiprocessor: smemPerSmKiB * KiB,
    sharedMemPerBlockOptin: optinKiB * KiB,
    reservedSharedMemPerBlock: reserved,
  }
}

export const CUDA_DEVICES: Readonly<Record<string, CudaDevice>> = Object.freeze({
  '7.0': device('7.0', 'V100 (Volta)', 2048, 96, 96, 0),
  '7.5': device('7.5', 'T4, RTX 20 (Turing)', 1024, 64, 64, 0),
  '8.0': device('8.0', 'A100, A30 (Ampere)', 2048, 164, 163, KiB),
  '8.6': device('8.6', 'RTX 30, A10, A40 (Ampere)', 1536, 100, 99, KiB),
  '8.9': device('8.9', 'L4, L40, RTX 40 (Ada)', 1536, 100, 99, KiB),
  '9.0': device('9.0', 'H100, H200 (Hopper)', 2048, 228, 227, KiB),
  '10.0': device('10.0', 'B200, GB200 (Blackwell data centre)', 2048, 228, 227, KiB),
  '12.0': device('12.0', 'RTX 50, RTX PRO Blackwell', 1536, 100, 99, KiB),
})

export const COMPUTE_CAPABILITIES = Object.keys(CUDA_DEVICES) as [string, ...string[]]
