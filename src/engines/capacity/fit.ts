// Does a model fit real devices? Inference under a named serving model, with every component's formula and source.
import { inferencePeakPerToken, lastLogitsBytesPerSequence } from './activations.js'
import { kvSizer, KV_RUNTIME_SOURCES, type KvRuntime } from './kv.js'
import type { Arch } from './models.js'
import { countParams } from './params.js'

export const GiB = 2 ** 30

/** One device kind, as many times as `count`, with what the runtime takes before the model does. */
export interface DeviceSpec {
  count: number
  total_bytes: number
  cuda_context_bytes: number
  cuda_context_source: string
  cublas_workspace_bytes: number
  cublas_workspace_source: string
}

export interface FitComponent {
  name: string
  /** Whole model replica (every shard together), or null when not estimated. */
  bytes: number | null
  per_device_bytes: number | null
  formula: string
  source: string
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

export const verdict = (need: number, capacity: number): FitVerdict => ({
  per_device_bytes: need,
  device_capacity_bytes: capacity,
  fits: need <= capacity,
  headroom_bytes: capacity - need,
  headroom_fraction: (capacity - need) / capacity,
})

/** Why a tensor-parallel degree cannot shard this model on these devices (empty when it can). */
export function tensorParallelProblems(a: Arch, tp: number, deviceCount: number, pp = 1): string[] {
  const problems: string[] = []
  if (deviceCount % (tp * pp) !== 0) {
    problems.push(`tensor_parallel ${tp} × pipeline_parallel ${pp} does not divide the device count ${deviceCount}`)
  }
  if (a.heads % tp !== 0) problems.push(`${a.heads} attention heads cannot be split evenly over ${tp} devices`)
  if (!a.mla && a.kv_heads % tp !== 0 && tp % a.kv_heads !== 0) {
    problems.push(`${a.kv_heads} KV heads can neither be split over nor replicated across ${tp} devices`)
  }
  if (pp > a.layers) problems.push(`pipeline_parallel ${pp} exceeds the ${a.layers} layers`)
  return problems
}

/** Largest n in [lo, hi] with ok(n), for ok monotone (true then false); lo − 1 when none. */
export function largest(ok: (n: number) => boolean, lo: number, hi: number): number {
  if (!ok(lo)) return lo - 1
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2)
    if (ok(mid)) lo = mid
    else hi = mid - 1
  }
  return lo
}

export interface ServingModel {
  runtime: KvRuntime
  /** transformers: tokens per sequence in one prefill forward (all sequences of the batch together). */
  prefill_chunk: number
  /** vllm: share of the device's total memory the engine may use. */
  gpu_memory_utilization: number
  max_num_batched_tokens: number
  max_num_seqs: number
  block_size: number
}

export interface InferencePlanInput {
  arch: Arch
  weightBytes: number
  kvBytesPerValue: number
  context: number
  batch: number
  devices: DeviceSpec
  tensorParallel: number
  pipelineParallel: number
  /** The window applied to the model's sliding layers, or null for none. */
  window: number | null
  serving: ServingModel
  /** transformers: share of the device kept free for allocator rounding and fragmentation. */
  marginFraction: number
  /** Declared by the caller per device (reserved memory, a declared overhead). */
  declared: Array<{ name: string; per_device_bytes: number; note: string }>
}

export type BatchLimiter = 'memory' | 'max_num_seqs'
export type ContextLimiter = 'memory' | 'max_context'

export interface InferencePlan extends FitVerdict {
  components: FitComponent[]
  /** Bytes a device holds (total, or utilisation × total for vllm) less the safety margin. */
  usable_bytes: number
  tensor_parallel: number
  pipeline_parallel: number
  replicas: number
  kv_heads_per_device: number
  /** Layers on the most loaded pipeline stage. */
  stage_layers: number
  /** vllm: KV bytes left for blocks after weights and the profiled peak, and how many sequences they hold. */
  kv_pool_bytes: number | null
  max_batch_at_context: number
  max_batch_limited_by: BatchLimiter
  /** Largest context at the batch by memory alone; null when memory sets no limit (every layer windowed). */
  max_context_by_memory: number | null
  max_context_at_batch: number | null
  max_context_limited_by: ContextLimiter | null
  problems: string[]
}

const CONTEXT_SEARCH_LIMIT = 2 ** 40

/**
 * Largest batch in [0, cap] that fits. Need mostly grows by a fixed amount per sequence, so the linear estimate is
 * checked a few steps either side; where it is off (rounding, a peak that is a max of two terms) it bisects.
 */
export function largestBatch(fits: (b: number) => boolean, need: (b: number) => number, usable: number, cap: number): number {
  const base = need(0)
  const per = need(1) - base
  let b = per <= 0 ? cap : Math.max(0, Math.min(cap, Math.floor((usable - base) / per)))
  for (let step = 0; step < 4; step++) {
    if (b < cap && fits(b + 1)) b++
    else if (b > 0 && !fits(b)) b--
    else return b
  }
  return Math.max(0, largest(fits, 1, cap))
}

const ACTIVATION_SOURCE =
  'derived from the decoder block (transformers Llama/Mistral/Gemma/Phi-3/DeepSeek modelling, SDPA attention): the ' +
  'tensors alive at once in one layer; checked against the issue #29 H100 edges (llama-2-7b 31/32 at 4,096 tokens, ' +
  'llama-3.1-8b ≥ 59 out of memory at 8,192), measured on H100 80GB HBM3, torch 2.11, transformers 5.17, peft 0.21, CUDA 13.0'

/** Memory of serving `batch` sequences of `context` tokens, per device of the most loaded stage. */
export function inferencePlan(i: InferencePlanInput): InferencePlan {
  const { arch: a, tensorParallel: tp, pipelineParallel: pp, serving: s } = i
  const problems = tensorParallelProblems(a, tp, i.devices.count, pp)
  const p = countParams(a)
  const stageLayers = Math.ceil(a.layers / pp)
  // The most loaded stage: its share of the layers, plus the embedding (first stage) or lm_head and final norm (last).
  const layerParams = (p.total - p.embedding - p.lm_head - a.hidden) / a.layers
  const stageParams = pp === 1 ? p.total : stageLayers * layerParams + Math.max(p.embedding, p.lm_head + a.hidden)
  const weightsPerDevice = Math.ceil((i.weightBytes * stageParams) / p.total / tp)
  const kvShare = a.mla ? (s.runtime === 'vllm' ? 1 : 1 / tp) : Math.max(1, a.kv_heads / tp) / a.kv_heads
  const kvHeadsPerDevice = a.mla ? (s.runtime === 'vllm' ? 1 : a.heads / tp) : Math.max(1, a.kv_heads / tp)
  const stageShare = stageLayers / a.layers
  const sizeKv = kvSizer({
    arch: a, bytesPerValue: i.kvBytesPerValue, blockSize: s.block_size, window: i.window, runtime: s.runtime,
    maxNumBatchedTokens: s.max_num_batched_tokens,
  })
  const kvWhole = (tokens: number, batch: number) => {
    const r = sizeKv(tokens, batch)
    return s.runtime === 'vllm' ? r.paged : r.exact
  }
  const kvOf = (tokens: number, batch: number) => Math.ceil(kvWhole(tokens, batch) * kvShare * stageShare)
  const peak = inferencePeakPerToken(a, tp)
  const dev = i.devices
  const declared = i.declared.reduce((sum, d) => sum + d.per_device_bytes, 0)
  const fixedRuntime = dev.cuda_context_bytes + dev.cublas_workspace_bytes
  const activationOf = (tokens: number, batch: number) =>
    s.runtime === 'vllm'
      ? s.max_num_batched_tokens * peak.bytes + s.max_num_seqs * (a.vocab / tp) * 8
      : batch * Math.min(s.prefill_chunk, tokens) * peak.bytes + batch * lastLogitsBytesPerSequence(a, tp)

  // Capacity: the whole card less the margin (transformers), or the utilisation budget vLLM carves out of it.
  const budget = s.runtime === 'vllm' ? Math.floor(s.gpu_memory_utilization * dev.total_bytes) : dev.total_bytes
  const margin = s.runtime === 'vllm' ? 0 : Math.ceil(i.marginFraction * dev.total_bytes)
  if (s.runtime === 'vllm' && budget + dev.cuda_context_bytes > dev.total_bytes) {
    problems.push(
      `gpu_memory_utilization ${s.gpu_memory_utilization} asks for more than the card has free after its CUDA context ` +
        `(vLLM refuses to start when free memory is below utilisation × total)`,
    )
  }
  const usable = budget - margin
  // vLLM's budget holds weights, the profiled peak and the KV blocks; the CUDA context sits outside it.
  const inBudget = (tokens: number, batch: number) =>
    weightsPerDevice + kvOf(tokens, batch) + activationOf(tokens, batch) + dev.cublas_workspace_bytes + declared +
    (s.runtime === 'vllm' ? 0 : dev.cuda_context_bytes)
  const fitsAt = (tokens: number, batch: number) =>
    problems.length === 0 && inBudget(tokens, batch) <= usable && (s.runtime !== 'vllm' || batch <= s.max_num_seqs)

  const kv = kvOf(i.context, i.batch)
  const act = activationOf(i.context, i.batch)
  const replicaDevices = tp * pp
  const chunk = Math.min(s.prefill_chunk, i.context)
  const components: FitComponent[] = [
    {
      name: 'cuda_context',
      bytes: dev.cuda_context_bytes * replicaDevices,
      per_device_bytes: dev.cuda_context_bytes,
      formula: 'per device, outside PyTorch',
      source: dev.cuda_context_source,
      note: s.runtime === 'vllm' ? 'outside the gpu_memory_utilization budget' : 'taken before the model loads',
    },
    {
      name: 'cublas_workspace',
      bytes: dev.cublas_workspace_bytes * replicaDevices,
      per_device_bytes: dev.cublas_workspace_bytes,
      formula: 'per device and stream, at the first matmul',
      source: dev.cublas_workspace_source,
      note: 'allocated through PyTorch',
    },
    {
      name: 'weights',
      bytes: i.weightBytes,
      per_device_bytes: weightsPerDevice,
      formula: pp === 1 ? `weight bytes / tensor_parallel ${tp}` : `weight bytes × stage parameter share / tensor_parallel ${tp}`,
      source: 'weights_dtype (see weights_dtype.statement and source)',
      note: pp === 1 ? 'split evenly over the tensor-parallel group' : `the most loaded of ${pp} pipeline stages (${stageLayers} layers)`,
    },
    {
      name: 'kv_cache',
      bytes: kvWhole(i.context, i.batch),
      per_device_bytes: kv,
      formula:
        s.runtime === 'vllm'
          ? 'paged blocks for batch × context per layer group, × KV heads per device / kv_heads'
          : 'batch × tokens kept per layer group × bytes per token per layer, × KV heads per device / kv_heads',
      source: KV_RUNTIME_SOURCES[s.runtime],
      note:
        `${i.batch} sequence(s) × ${i.context} tokens; ${i.window === null ? 'no window applied' : `window ${i.window} on ${a.sliding_window_layers} layer(s)`}; ` +
        `${kvHeadsPerDevice} KV head(s) per device`,
    },
    {
      name: s.runtime === 'vllm' ? 'profiled_activation_peak' : 'prefill_activations',
      bytes: act * replicaDevices,
      per_device_bytes: act,
      formula:
        s.runtime === 'vllm'
          ? `max_num_batched_tokens ${s.max_num_batched_tokens} × ${peak.bytes} B (${peak.formula}) + max_num_seqs ${s.max_num_seqs} × V × 8 B (float32 logits and probabilities)`
          : `batch ${i.batch} × chunk ${chunk} × ${peak.bytes} B per token (${peak.formula}, ${peak.stage} stage) + batch × V × 6 B (last-token logits, bf16 and float32)`,
      source:
        s.runtime === 'vllm'
          ? `vllm-project/vllm vllm/v1/worker/gpu_worker.py determine_available_memory (profile_run with max_num_batched_tokens dummy tokens); ${ACTIVATION_SOURCE}`
          : ACTIVATION_SOURCE,
      note: s.runtime === 'vllm' ? 'what the profile run reserves' : 'grows with batch × prefill chunk',
    },
    ...i.declared.map((d) => ({
      name: d.name,
      bytes: d.per_device_bytes * replicaDevices,
      per_device_bytes: d.per_device_bytes,
      formula: 'declared per device',
      source: 'declared by the caller',
      note: d.note,
    })),
  ]
  if (margin > 0) {
    components.push({
      name: 'safety_margin',
      bytes: margin * replicaDevices,
      per_device_bytes: margin,
      formula: `${(i.marginFraction * 100).toFixed(2)}% of the device's total bytes`,
      source: 'stated margin for the caching allocator (block rounding, fragmentation between the prefill steps)',
      note: 'kept free: a fit leaves at least this much',
    })
  }
  const need = inBudget(i.context, i.batch) + margin + (s.runtime === 'vllm' ? dev.cuda_context_bytes : 0)
  const capacity = dev.total_bytes
  const v = verdict(need, capacity)

  const maxBatch = largestBatch((b) => fitsAt(i.context, b), (b) => inBudget(i.context, b), usable, s.runtime === 'vllm' ? s.max_num_seqs : 65_536)
  const batchLimiter: BatchLimiter =
    s.runtime === 'vllm' && maxBatch === s.max_num_seqs && inBudget(i.context, s.max_num_seqs + 1) <= usable ? 'max_num_seqs' : 'memory'
  const fitsContext = (t: number) => fitsAt(t, i.batch)
  const maxContextByMemory = !fitsContext(1) ? 0 : fitsContext(CONTEXT_SEARCH_LIMIT) ? null : largest(fitsContext, 1, CONTEXT_SEARCH_LIMIT)
  const limits = [
    ...(maxContextByMemory === null ? [] : [{ by: 'memory' as const, tokens: maxContextByMemory }]),
    ...(a.max_context === null ? [] : [{ by: 'max_context' as const, tokens: a.max_context }]),
  ].sort((x, y) => x.tokens - y.tokens)
  const pool = s.runtime === 'vllm' ? usable - (inBudget(i.context, i.batch) - kv) : null
  return {
    components,
    ...v,
    fits: v.fits && fitsAt(i.context, i.batch),
    usable_bytes: usable,
    tensor_parallel: tp,
    pipeline_parallel: pp,
    replicas: Math.floor(i.devices.count / replicaDevices),
    kv_heads_per_device: kvHeadsPerDevice,
    stage_layers: stageLayers,
    kv_pool_bytes: pool,
    max_batch_at_context: maxBatch,
    max_batch_limited_by: batchLimiter,
    max_context_by_memory: maxContextByMemory,
    max_context_at_batch: limits[0]?.tokens ?? null,
    max_context_limited_by: limits[0]?.by ?? null,
    problems,
  }
}
