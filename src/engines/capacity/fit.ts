// Does a model fit declared devices? Inference (weights + KV + overhead, tensor parallel) and fine-tuning memory.
import type { Arch } from './models.js'
import { kvCache } from './kv.js'
import type { FineTuneMemory } from './peft.js'

export const GiB = 2 ** 30

export interface Devices {
  count: number
  memory_gib: number
}

export interface FitComponent {
  name: string
  /** Whole model replica (every tensor-parallel shard together), or null when not estimated. */
  bytes: number | null
  per_device_bytes: number | null
  note: string
}

export interface FitVerdict {
  per_device_bytes: number
  device_capacity_bytes: number
  fits: boolean
  /** Capacity minus need on each device; negative when it does not fit. */
  headroom_bytes: number
  headroom_fraction: number
}

const verdict = (need: number, devices: Devices): FitVerdict => {
  const capacity = devices.memory_gib * GiB
  return {
    per_device_bytes: need,
    device_capacity_bytes: capacity,
    fits: need <= capacity,
    headroom_bytes: capacity - need,
    headroom_fraction: (capacity - need) / capacity,
  }
}

/** Why a tensor-parallel degree cannot shard this model on these devices (empty when it can). */
export function tensorParallelProblems(a: Arch, tp: number, deviceCount: number): string[] {
  const problems: string[] = []
  if (deviceCount % tp !== 0) problems.push(`tensor_parallel ${tp} does not divide the device count ${deviceCount}`)
  if (a.heads % tp !== 0) problems.push(`${a.heads} attention heads cannot be split evenly over ${tp} devices`)
  if (a.kv_heads % tp !== 0 && tp % a.kv_heads !== 0) {
    problems.push(`${a.kv_heads} KV heads can neither be split over nor replicated across ${tp} devices`)
  }
  return problems
}

export interface InferenceFitInput {
  arch: Arch
  weightBytes: number
  kvBytesPerValue: number
  context: number
  /** Concurrent sequences per model replica. */
  batch: number
  overheadPercent: number
  reservedBytesPerDevice: number
  devices: Devices
  tensorParallel: number
  applySlidingWindow: boolean
  blockSize: number
}

export interface InferenceFit extends FitVerdict {
  components: FitComponent[]
  tensor_parallel: number
  replicas: number
  kv_heads_per_device: number
  /** Largest batch per replica that fits at the requested context (0 when not even one sequence fits). */
  max_batch_at_context: number
  /** Largest context that fits at the requested batch, by memory alone; null when memory sets no limit
   * (every layer windowed and the windows applied). */
  max_context_by_memory: number | null
  /** The smaller of the memory limit and the model's max_context; null when neither limits it. */
  max_context_at_batch: number | null
  max_context_limited_by: 'memory' | 'max_context' | null
}

/** Largest n in [0, hi] with ok(n), for ok monotone (true then false). */
function largest(ok: (n: number) => boolean, hi: number): number {
  let lo = 0
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2)
    if (ok(mid)) lo = mid
    else hi = mid - 1
  }
  return lo
}

const CONTEXT_SEARCH_LIMIT = 2 ** 40

export function inferenceFit(i: InferenceFitInput): InferenceFit {
  const { arch: a, tensorParallel: tp } = i
  const kvHeadsPerDevice = Math.max(1, a.kv_heads / tp)
  const kvShare = kvHeadsPerDevice / a.kv_heads
  const kvOf = (tokens: number, batch: number) =>
    kvCache({ arch: a, tokens, batch, bytesPerValue: i.kvBytesPerValue, blockSize: i.blockSize, applySlidingWindow: i.applySlidingWindow })
      .total_bytes
  const kv = kvOf(i.context, i.batch)
  // Shards round up to whole bytes.
  const overhead = Math.ceil((i.weightBytes * i.overheadPercent) / 100)
  const weightsPerDevice = Math.ceil(i.weightBytes / tp)
  const overheadPerDevice = Math.ceil(overhead / tp)
  const components: FitComponent[] = [
    { name: 'weights', bytes: i.weightBytes, per_device_bytes: weightsPerDevice, note: 'split evenly over the tensor-parallel group' },
    {
      name: 'kv_cache',
      bytes: kv,
      per_device_bytes: kv * kvShare,
      note: `${i.batch} sequence(s) × ${i.context} tokens; each device holds ${kvHeadsPerDevice} of ${a.kv_heads} KV heads`,
    },
    {
      name: 'overhead',
      bytes: overhead,
      per_device_bytes: overheadPerDevice,
      note: `${i.overheadPercent}% of the weight bytes (activations, buffers, fragmentation)`,
    },
    {
      name: 'reserved',
      bytes: i.reservedBytesPerDevice * tp,
      per_device_bytes: i.reservedBytesPerDevice,
      note: 'declared per device (CUDA context, runtime)',
    },
  ]
  const fixed = weightsPerDevice + overheadPerDevice + i.reservedBytesPerDevice
  const need = fixed + kv * kvShare
  const capacity = i.devices.memory_gib * GiB
  const free = capacity - fixed
  const perSequence = kvOf(i.context, 1) * kvShare
  const maxBatch = free <= 0 ? 0 : Math.floor(free / perSequence)
  const fitsContext = (t: number) => kvOf(t, i.batch) * kvShare <= free
  const maxContextByMemory =
    free <= 0 ? 0 : fitsContext(CONTEXT_SEARCH_LIMIT) ? null : largest(fitsContext, CONTEXT_SEARCH_LIMIT)
  const limits = [
    ...(maxContextByMemory === null ? [] : [{ by: 'memory' as const, tokens: maxContextByMemory }]),
    ...(a.max_context === null ? [] : [{ by: 'max_context' as const, tokens: a.max_context }]),
  ].sort((x, y) => x.tokens - y.tokens)
  return {
    components,
    ...verdict(need, i.devices),
    tensor_parallel: tp,
    replicas: i.devices.count / tp,
    kv_heads_per_device: kvHeadsPerDevice,
    max_batch_at_context: maxBatch,
    max_context_by_memory: maxContextByMemory,
    max_context_at_batch: limits[0]?.tokens ?? null,
    max_context_limited_by: limits[0]?.by ?? null,
  }
}

export type Sharding = 'fully_sharded' | 'replicated'

export interface TrainingFitInput {
  memory: FineTuneMemory
  devices: Devices
  sharding: Sharding
  /** Declared by the caller per device, or null when not known. */
  activationBytesPerDevice: number | null
  reservedBytesPerDevice: number
}

export interface TrainingFit extends FitVerdict {
  components: FitComponent[]
  sharding: Sharding
  /** Components the verdict could not include. */
  excluded: string[]
}

export function trainingFit(i: TrainingFitInput): TrainingFit {
  const m = i.memory
  const share = i.sharding === 'fully_sharded' ? 1 / i.devices.count : 1
  const sharded = (name: string, bytes: number, note: string): FitComponent => ({
    name,
    bytes,
    per_device_bytes: Math.ceil(bytes * share),
    note: i.sharding === 'fully_sharded' ? `${note}; sharded over ${i.devices.count} device(s)` : `${note}; on every device`,
  })
  const components: FitComponent[] = [
    sharded('frozen_weights', m.frozen_weights, 'base weights that are not trained'),
    sharded('trainable_weights', m.trainable_weights, 'trained weights and master copies'),
    sharded('gradients', m.gradients, 'one gradient per trainable parameter'),
    sharded('optimizer_states', m.optimizer_states, 'Adam first and second moments (and fp32 master weights in zero_16)'),
    i.activationBytesPerDevice === null
      ? { name: 'activations', bytes: null, per_device_bytes: null, note: 'not estimated: they depend on sequence length, micro-batch, checkpointing and kernels; declare activation_gib to include them' }
      : { name: 'activations', bytes: i.activationBytesPerDevice * i.devices.count, per_device_bytes: i.activationBytesPerDevice, note: 'declared per device' },
    { name: 'reserved', bytes: i.reservedBytesPerDevice * i.devices.count, per_device_bytes: i.reservedBytesPerDevice, note: 'declared per device' },
  ]
  const need = components.reduce((s, c) => s + (c.per_device_bytes ?? 0), 0)
  return {
    components,
    ...verdict(need, i.devices),
    sharding: i.sharding,
    excluded: i.activationBytesPerDevice === null ? ['activations'] : [],
  }
}
