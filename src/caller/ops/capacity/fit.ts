// POST /fit: does a model fit real devices, for inference or fine-tuning, under a stated serving model and margin?
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { DTYPES, bytesPerValue, type DtypeName } from '../../../engines/capacity/dtypes.js'
import { inferencePlan, type FitComponent, type FitVerdict, type InferencePlan } from '../../../engines/capacity/fit.js'
import { adaptedInputsPerLayer } from '../../../engines/capacity/lora-layout.js'
import { trainingPlan, ZERO_SOURCE, type ZeroStage } from '../../../engines/capacity/training-fit.js'
import { isDtypeName, weightBytes, WEIGHT_FORMATS, type WeightFormat } from '../../../engines/capacity/weights.js'
import {
  CATALOGUE_SOURCES, checkTokens, dtypeInput, effectiveWindow, followsFact, followsInput, followsOutput, GIB,
  kvDtype, modelFields, modelOutput, paramsOutput, resolveModel, slidingWindowInput, targetModulesInput,
  type ResolvedModel,
} from './common.js'
import { deviceOutput, devicesInput, resolveDevices, type ResolvedDevices } from './devices.js'
import { runtimeInput } from './kv.js'
import { accountingInput, accountingOutput, fineTune, methodInput } from './training.js'

const INFERENCE_ONLY = [
  'kv_dtype', 'overhead_percent', 'tensor_parallel', 'pipeline_parallel', 'sliding_window', 'runtime', 'prefill_chunk',
  'gpu_memory_utilization', 'max_num_batched_tokens', 'max_num_seqs', 'block_size',
] as const
const TRAINING_ONLY = [
  'method', 'r', 'target_modules', 'accounting', 'sharding', 'zero_stage', 'activation_gib', 'gradient_checkpointing',
  'follows',
] as const
const VLLM_ONLY = ['gpu_memory_utilization', 'max_num_batched_tokens', 'max_num_seqs'] as const
const TRANSFORMERS_ONLY = ['prefill_chunk'] as const

/** Defaults of the serving models, stated in every answer. */
export const SERVING_DEFAULTS = {
  prefill_chunk: 1024,
  gpu_memory_utilization: 0.9,
  max_num_batched_tokens: 8192,
  max_num_seqs: 256,
  block_size: 16,
  margin_percent: 1,
} as const

const weightFormatInput = z
  .enum(WEIGHT_FORMATS)
  .describe('Weight format: fp32/fp16/bf16, fp8, int8, int4 (GPTQ g128), nf4, gptq-int4/gptq-int8/awq-int4 (with group_size), GGUF q8_0/q6_k/q5_k_m/q4_k_m/q4_0')

const input = z
  .object({
    ...modelFields,
    devices: devicesInput,
    mode: z.enum(['inference', 'training']).default('inference'),
    dtype: weightFormatInput.optional().describe('Weight format: default bf16 (inference, LoRA, full) or nf4 (QLoRA)'),
    group_size: z.union([z.literal(-1), z.number().int().min(16).max(4096)]).optional().describe('GPTQ/AWQ group size, default 128 (−1: one group per row)'),
    reserved_gib_per_device: z.number().min(0).max(1024).default(0).describe('Memory per device taken by something else (declared)'),
    margin_percent: z.number().min(0).max(50).optional().describe(`Share of each device kept free for the allocator, default ${SERVING_DEFAULTS.margin_percent}`),
    context: z.number().int().min(1).optional().describe('Tokens per sequence, default 4096'),
    batch: z.number().int().min(1).optional().describe('Sequences per model replica (inference) or micro-batch per device (training), default 1'),
    // inference
    kv_dtype: dtypeInput.optional().describe('KV-cache format (inference), default fp16'),
    overhead_percent: z.number().min(0).max(400).optional().describe('An extra declared overhead, as % of the weight bytes (inference); none by default'),
    tensor_parallel: z.number().int().min(1).optional().describe('Devices one replica is split over by tensor parallelism, default all / pipeline_parallel'),
    pipeline_parallel: z.number().int().min(1).optional().describe('Pipeline stages (inference), default 1'),
    sliding_window: slidingWindowInput.optional(),
    runtime: runtimeInput.optional(),
    prefill_chunk: z.number().int().min(1).max(1_048_576).optional().describe(`transformers: prompt tokens per sequence in one forward, default ${SERVING_DEFAULTS.prefill_chunk}`),
    gpu_memory_utilization: z.number().gt(0).max(1).optional().describe(`vllm: share of the card the engine takes, default ${SERVING_DEFAULTS.gpu_memory_utilization}`),
    max_num_batched_tokens: z.number().int().min(1).max(1_048_576).optional().describe(`vllm: tokens per step, default ${SERVING_DEFAULTS.max_num_batched_tokens}`),
    max_num_seqs: z.number().int().min(1).max(65_536).optional().describe(`vllm: sequences per step, default ${SERVING_DEFAULTS.max_num_seqs}`),
    block_size: z.number().int().min(1).max(4096).optional().describe(`vllm: tokens per KV block, default ${SERVING_DEFAULTS.block_size}`),
    // training
    method: methodInput.optional().describe('full, lora or qlora (training), default full'),
    r: z.number().int().min(1).optional().describe('LoRA rank (training), default 16'),
    target_modules: targetModulesInput.optional(),
    accounting: accountingInput.optional(),
    sharding: z.enum(['fully_sharded', 'replicated']).optional().describe('Same as zero_stage 3 (fully_sharded) or 0 (replicated)'),
    zero_stage: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional().describe('ZeRO stage over the devices (training), default 3 with several devices'),
    gradient_checkpointing: z.boolean().optional().describe('Keep only each layer input and recompute (training), default false'),
    activation_gib: z.number().min(0).max(1_000_000).optional().describe('Activation memory per device, if measured (training): replaces the estimate'),
    follows: followsInput.optional(),
  })
  .strict()

const component = z.object({
  name: z.string(),
  bytes: z.number().nullable(),
  per_device_bytes: z.number().nullable(),
  formula: z.string(),
  source: z.string(),
  note: z.string(),
})

const formatOption = z.object({
  format: z.string(),
  bits_per_weight: z.number(),
  weight_bytes: z.number(),
  fits: z.boolean(),
  max_batch_at_context: z.number().int(),
  max_context_at_batch: z.number().int().nullable(),
})

const output = z.object({
  model: modelOutput,
  mode: z.enum(['inference', 'training']),
  parameters: paramsOutput,
  devices: deviceOutput,
  weights_dtype: z.object({
    name: z.string(),
    bits: z.number(),
    overhead_bits: z.number(),
    quantized: z.boolean(),
    bits_per_weight: z.number(),
    weight_bytes: z.number(),
    by_type: z.array(z.object({ type: z.string(), params: z.number(), bytes: z.number() })),
    statement: z.string(),
    source: z.string().nullable(),
  }),
  components: z.array(component),
  per_device_bytes: z.number(),
  per_device_gib: z.number(),
  device_capacity_bytes: z.number(),
  margin_bytes: z.number(),
  fits: z.boolean(),
  headroom_bytes: z.number(),
  headroom_gib: z.number(),
  headroom_fraction: z.number(),
  inference: z
    .object({
      runtime: z.enum(['transformers', 'vllm']),
      kv_dtype: z.string(),
      context: z.number().int(),
      batch: z.number().int(),
      overhead_percent: z.number(),
      tensor_parallel: z.number().int(),
      pipeline_parallel: z.number().int(),
      replicas: z.number().int(),
      kv_heads_per_device: z.number(),
      window_applied: z.number().int().nullable(),
      prefill_chunk: z.number().int().nullable(),
      gpu_memory_utilization: z.number().nullable(),
      max_num_batched_tokens: z.number().int().nullable(),
      max_num_seqs: z.number().int().nullable(),
      usable_bytes: z.number(),
      kv_pool_bytes: z.number().nullable(),
      max_batch_at_context: z.number().int(),
      max_batch_limited_by: z.enum(['memory', 'max_num_seqs']),
      max_context_by_memory: z.number().int().nullable(),
      max_context_at_batch: z.number().int().nullable(),
      max_context_limited_by: z.enum(['memory', 'max_context']).nullable(),
      weight_formats: z.array(formatOption),
      cheapest_fitting_format: z
        .object({ format: z.string(), bits_per_weight: z.number(), ruled_out: z.array(z.object({ format: z.string(), limited_by: z.literal('memory') })) })
        .nullable(),
    })
    .nullable(),
  training: z
    .object({
      method: z.enum(['full', 'lora', 'qlora']),
      accounting: accountingOutput,
      follows: followsOutput,
      total_params: z.number(),
      trainable_params: z.number(),
      trainable_fraction: z.number(),
      target_modules: z.array(z.string()).nullable(),
      r: z.number().int().nullable(),
      sharding: z.enum(['fully_sharded', 'replicated', 'partially_sharded']),
      zero_stage: z.number().int(),
      context: z.number().int(),
      batch: z.number().int(),
      gradient_checkpointing: z.boolean(),
      activation_bytes: z.number(),
      excluded: z.array(z.string()),
      ratio_to_full: z.number(),
      max_batch_at_context: z.number().int().nullable(),
      max_batch_limited_by: z.enum(['memory']).nullable(),
      max_context_at_batch: z.number().int().nullable(),
      max_context_limited_by: z.enum(['memory', 'max_context']).nullable(),
      limits_reason: z.string(),
    })
    .nullable(),
  assumptions: z.array(z.string()),
})

type Input = z.output<typeof input>

function misplaced(i: Input): void {
  const wrong: Array<{ key: string; why: string }> = (i.mode === 'inference' ? TRAINING_ONLY : INFERENCE_ONLY)
    .filter((k) => i[k] !== undefined)
    .map((k) => ({ key: k, why: `only for mode ${i.mode === 'inference' ? 'training' : 'inference'}` }))
  if (i.mode === 'inference') {
    const runtime = i.runtime ?? 'transformers'
    const other = runtime === 'vllm' ? TRANSFORMERS_ONLY : VLLM_ONLY
    wrong.push(...other.filter((k) => i[k] !== undefined).map((k) => ({ key: k, why: `does not apply to runtime ${runtime}` })))
  }
  if (i.group_size !== undefined && !['gptq-int4', 'gptq-int8', 'awq-int4'].includes(i.dtype ?? '')) {
    wrong.push({ key: 'group_size', why: 'only for dtype gptq-int4, gptq-int8 or awq-int4' })
  }
  if (i.sharding !== undefined && i.zero_stage !== undefined && (i.sharding === 'fully_sharded') !== (i.zero_stage === 3)) {
    wrong.push({ key: 'sharding', why: `contradicts zero_stage ${i.zero_stage}` })
  }
  if (wrong.length) {
    throw new Refusal('invalid_input', wrong.map((w) => `${w.key} ${w.why}`).join('; '), {
      issues: wrong.map((w) => ({ path: w.key, message: w.why })),
    })
  }
}

export const fit = defineOperation({
  name: 'fit',
  method: 'POST',
  path: '/fit',
  lobe: 'capacity',
  caption: 'Does a model fit real devices, for inference or fine-tuning?',
  summary:
    'Devices are GPU presets with their real usable bytes (the H100 80GB figure measured) or declared memory; the CUDA ' +
    'context and the cuBLAS workspace are named components. Inference follows a stated serving model: transformers ' +
    '(KV for batch × context with the model\'s own windows, prefill activations growing with batch × chunk, a safety ' +
    'margin) or vLLM (gpu_memory_utilization budget: weights + the profiled peak + KV blocks). Tensor and pipeline ' +
    'parallel split the replica. It answers fits and headroom, the largest batch at the context and the longest context ' +
    'at the batch (each with its limiter), and every weight format with the least-quantised one that fits. Training: ' +
    'full, LoRA or QLoRA weights, gradients, optimizer states, the AdamW step\'s own peak, activations for batch × ' +
    'context with or without gradient checkpointing, ZeRO stages 0-3. Every component names its formula and source. ' +
    'Refuses unknown presets, devices given twice or not at all, parallel degrees the model cannot use, dtypes that do ' +
    'not apply and fields of the other mode or runtime.',
  input,
  output,
  provenance: ['computed', 'declared', 'measured'],
  sources: [...CATALOGUE_SOURCES, 'GPU presets: src/engines/capacity/devices.ts (each with its source)', ZERO_SOURCE],
  checkLimits: (i) => checkTokens(Math.max(i.context ?? 1, i.prefill_chunk ?? 1), i.batch ?? 1),
  examples: [
    { model: 'llama-2-7b', devices: { count: 1, gpu: 'h100-sxm-80gb' }, context: 4096, batch: 31 },
    { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, context: 8192, batch: 4 },
    { model: 'llama-2-70b', devices: { count: 2, gpu: 'a100-80gb' }, dtype: 'awq-int4', group_size: 128, context: 4096, runtime: 'vllm' },
    {
      config: {
        model_type: 'llama', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8,
        intermediate_size: 14336, vocab_size: 128256, max_position_embeddings: 131072, tie_word_embeddings: false,
      },
      devices: { count: 1, gpu: 'l40s' },
      context: 16384,
      dtype: 'q4_k_m',
    },
    {
      model: 'llama-2-7b', devices: { count: 1, gpu: 'h100-sxm-80gb' }, mode: 'training', method: 'lora', r: 16,
      target_modules: 'all-linear', context: 4096, batch: 4, gradient_checkpointing: true,
    },
    { model: 'mistral-7b', devices: { count: 1, gpu: 'rtx-4090' }, mode: 'training', method: 'qlora', r: 16, target_modules: 'all-linear', context: 2048 },
  ],
  handler: (i) => {
    misplaced(i)
    const resolved = resolveModel(i)
    const devices = resolveDevices(i.devices)
    return i.mode === 'inference' ? fitInference(i, resolved, devices) : fitTraining(i, resolved, devices)
  },
})

const weightsFact = (resolved: ResolvedModel, f: WeightFormat, groupSize: number) => {
  const w = weightBytes(resolved.arch, f, groupSize)
  const d = isDtypeName(f) ? DTYPES[f] : null
  return {
    name: f,
    bits: d ? d.bits : w.bits_per_weight,
    overhead_bits: d ? d.overhead_bits : 0,
    quantized: d ? d.quantized : true,
    bits_per_weight: w.bits_per_weight,
    weight_bytes: w.bytes,
    by_type: w.by_type,
    statement: w.statement,
    source: w.source,
  }
}

/** Formats a planner compares, most bits first after sizing them for this model. */
const CANDIDATE_FORMATS: WeightFormat[] = ['bf16', 'fp8', 'int8', 'q8_0', 'q6_k', 'q5_k_m', 'gptq-int4', 'awq-int4', 'q4_k_m', 'nf4', 'q4_0']

function fitInference(i: Input, resolved: ResolvedModel, devices: ResolvedDevices) {
  const { arch } = resolved
  const format = i.dtype ?? 'bf16'
  const groupSize = i.group_size ?? 128
  const kv = kvDtype(i.kv_dtype ?? 'fp16', 'kv_dtype')
  const runtime = i.runtime ?? 'transformers'
  const pp = i.pipeline_parallel ?? 1
  if (i.devices.count % pp !== 0) {
    throw new Refusal('invalid_input', `pipeline_parallel ${pp} does not divide the device count ${i.devices.count}`, {
      issues: [{ path: 'pipeline_parallel', message: 'must divide devices.count' }],
    })
  }
  const tp = i.tensor_parallel ?? i.devices.count / pp
  const context = i.context ?? 4096
  const batch = i.batch ?? 1
  const window = effectiveWindow(arch, i.sliding_window)
  const marginFraction = (i.margin_percent ?? SERVING_DEFAULTS.margin_percent) / 100
  const serving = {
    runtime,
    prefill_chunk: i.prefill_chunk ?? SERVING_DEFAULTS.prefill_chunk,
    gpu_memory_utilization: i.gpu_memory_utilization ?? SERVING_DEFAULTS.gpu_memory_utilization,
    max_num_batched_tokens: i.max_num_batched_tokens ?? SERVING_DEFAULTS.max_num_batched_tokens,
    max_num_seqs: i.max_num_seqs ?? SERVING_DEFAULTS.max_num_seqs,
    block_size: i.block_size ?? SERVING_DEFAULTS.block_size,
  }
  const planFor = (f: WeightFormat, b = batch): InferencePlan => {
    const weights = weightBytes(arch, f, groupSize).bytes
    const declared = [
      ...(i.reserved_gib_per_device > 0 ? [{ name: 'reserved', per_device_bytes: i.reserved_gib_per_device * GIB, note: 'declared per device' }] : []),
      ...(i.overhead_percent !== undefined
        ? [{ name: 'declared_overhead', per_device_bytes: Math.ceil((weights * i.overhead_percent) / 100 / (tp * pp)), note: `${i.overhead_percent}% of the weight bytes, as declared` }]
        : []),
    ]
    return inferencePlan({
      arch, weightBytes: weights, kvBytesPerValue: bytesPerValue(kv), context, batch: b, devices: devices.spec,
      tensorParallel: tp, pipelineParallel: pp, window, serving, marginFraction, declared,
    })
  }
  const f = planFor(format)
  if (f.problems.length && f.problems.some((p) => !p.startsWith('gpu_memory_utilization'))) {
    throw new Refusal('invalid_input', `tensor_parallel ${tp}, pipeline_parallel ${pp}: ${f.problems.join('; ')}`, {
      issues: f.problems.map((message) => ({ path: 'tensor_parallel', message })),
    })
  }
  const options = CANDIDATE_FORMATS.map((fmt) => {
    const p = fmt === format ? f : planFor(fmt)
    const w = weightBytes(arch, fmt, groupSize)
    return {
      format: fmt,
      bits_per_weight: w.bits_per_weight,
      weight_bytes: w.bytes,
      fits: p.fits,
      max_batch_at_context: p.max_batch_at_context,
      max_context_at_batch: p.max_context_at_batch,
    }
  }).sort((x, y) => y.bits_per_weight - x.bits_per_weight)
  const firstFit = options.findIndex((o) => o.fits)
  const cheapest =
    firstFit === -1
      ? null
      : {
          format: options[firstFit]!.format,
          bits_per_weight: options[firstFit]!.bits_per_weight,
          ruled_out: options.slice(0, firstFit).map((o) => ({ format: o.format, limited_by: 'memory' as const })),
        }
  const wf = weightsFact(resolved, format, groupSize)
  const assumptions = [
    `weights: ${wf.statement}`,
    `KV cache: ${kv.name}, ${bytesPerValue(kv)} byte(s) per value, ${runtime} layout; ` +
      (window === null ? 'every layer keeps every token' : `window ${window} on ${arch.sliding_window_layers} of ${arch.layers} layers`),
    runtime === 'transformers'
      ? `serving model (transformers): the KV cache for batch × context held at once; the prompt prefilled ${serving.prefill_chunk} ` +
        'tokens per sequence per forward for all sequences together (SDPA kernels, logits of the last token only); the ' +
        `CUDA context and cuBLAS workspace outside the model; ${(marginFraction * 100).toFixed(2)}% of the card kept free`
      : `serving model (vLLM): gpu_memory_utilization ${serving.gpu_memory_utilization} × total bytes holds the weights, the ` +
        `profiled peak of a ${serving.max_num_batched_tokens}-token step and max_num_seqs ${serving.max_num_seqs} samplers, ` +
        `and KV blocks of ${serving.block_size} tokens; the CUDA context lies outside it; CUDA-graph capture memory is not modelled`,
    `tensor parallel ${tp} × pipeline parallel ${pp}: weights split by tensor parallelism (the most loaded pipeline stage ` +
      `counted); ${f.kv_heads_per_device} KV head(s) per device; ${f.replicas} replica(s), batch is per replica`,
    `device: ${devices.fact.name}, ${devices.fact.total_bytes.toLocaleString('en-US')} bytes (${devices.fact.total_source})`,
    'GiB = 2^30 bytes',
    ...resolved.notes,
  ]
  if (arch.max_context !== null && context > arch.max_context) {
    assumptions.push(`context ${context} is beyond the model's max_context ${arch.max_context}`)
  }
  if (f.problems.length) assumptions.push(...f.problems)
  return {
    ...verdictOf(i, resolved, devices, wf, f, f.components.find((c) => c.name === 'safety_margin')?.per_device_bytes ?? 0),
    inference: {
      runtime,
      kv_dtype: kv.name,
      context,
      batch,
      overhead_percent: i.overhead_percent ?? 0,
      tensor_parallel: tp,
      pipeline_parallel: pp,
      replicas: f.replicas,
      kv_heads_per_device: f.kv_heads_per_device,
      window_applied: window,
      prefill_chunk: runtime === 'transformers' ? serving.prefill_chunk : null,
      gpu_memory_utilization: runtime === 'vllm' ? serving.gpu_memory_utilization : null,
      max_num_batched_tokens: runtime === 'vllm' ? serving.max_num_batched_tokens : null,
      max_num_seqs: runtime === 'vllm' ? serving.max_num_seqs : null,
      usable_bytes: f.usable_bytes,
      kv_pool_bytes: f.kv_pool_bytes,
      max_batch_at_context: f.max_batch_at_context,
      max_batch_limited_by: f.max_batch_limited_by,
      max_context_by_memory: f.max_context_by_memory,
      max_context_at_batch: f.max_context_at_batch,
      max_context_limited_by: f.max_context_limited_by,
      weight_formats: options,
      cheapest_fitting_format: cheapest,
    },
    training: null,
    assumptions,
  }
}

function fitTraining(i: Input, resolved: ResolvedModel, devices: ResolvedDevices) {
  const method = i.method ?? 'full'
  if (i.dtype !== undefined && !isDtypeName(i.dtype)) {
    throw new Refusal('invalid_input', `dtype ${i.dtype} is a serving format; training takes fp32, fp16, bf16, fp8, int8, int4 or nf4 bases`, {
      issues: [{ path: 'dtype', message: 'not a training base format' }],
    })
  }
  const follows = i.follows ?? { transformers: '5.x' as const, peft: '0.21' as const }
  const ft = fineTune(resolved, {
    method,
    r: i.r ?? 16,
    targetModules: i.target_modules ?? 'default',
    dtype: i.dtype as DtypeName | undefined,
    accounting: i.accounting,
    follows,
  })
  const n = i.devices.count
  const zero: ZeroStage = i.zero_stage ?? (i.sharding === 'replicated' ? 0 : i.sharding === 'fully_sharded' ? 3 : n > 1 ? 3 : 0)
  const context = i.context ?? 4096
  const batch = i.batch ?? 1
  const checkpointing = i.gradient_checkpointing ?? false
  const marginFraction = (i.margin_percent ?? SERVING_DEFAULTS.margin_percent) / 100
  const f = trainingPlan({
    arch: resolved.arch,
    memory: ft.memory,
    devices: devices.spec,
    zeroStage: zero,
    batch,
    context,
    gradientCheckpointing: checkpointing,
    lora: ft.lora ? { d_in: adaptedInputsPerLayer(resolved.arch, ft.lora.modules), r: ft.r ?? 16 } : null,
    stateBytesPerValue: 4,
    declaredActivationBytes: i.activation_gib === undefined ? null : i.activation_gib * GIB,
    marginFraction,
    declared: i.reserved_gib_per_device > 0 ? [{ name: 'reserved', per_device_bytes: i.reserved_gib_per_device * GIB, note: 'declared per device' }] : [],
  })
  const wf = { ...weightsFact(resolved, ft.baseDtype.name, 128) }
  return {
    ...verdictOf(i, resolved, devices, wf, f, f.components.find((c) => c.name === 'safety_margin')?.per_device_bytes ?? 0),
    inference: null,
    training: {
      method: ft.memory.method,
      accounting: ft.accounting,
      follows: followsFact(follows),
      total_params: ft.memory.total_params,
      trainable_params: ft.memory.trainable_params,
      trainable_fraction: ft.memory.trainable_fraction,
      target_modules: ft.targets?.modules ?? null,
      r: ft.r,
      sharding: zero === 3 ? ('fully_sharded' as const) : zero === 0 ? ('replicated' as const) : ('partially_sharded' as const),
      zero_stage: zero,
      context,
      batch,
      gradient_checkpointing: checkpointing,
      activation_bytes: f.activation_bytes,
      excluded: [],
      ratio_to_full: ft.memory.ratio_to_full,
      max_batch_at_context: f.activations_declared ? null : f.max_batch_at_context,
      max_batch_limited_by: f.activations_declared ? null : ('memory' as const),
      max_context_at_batch: f.max_context_at_batch,
      max_context_limited_by: f.max_context_limited_by,
      limits_reason: f.activations_declared
        ? 'activations were declared, so batch and context do not change the estimate'
        : 'activations grow with batch × context; the limits are where the per-device total meets the card less the margin',
    },
    assumptions: [
      ...ft.assumptions,
      `ZeRO stage ${zero} over ${n} device(s): ${['every device holds every component (DDP)', 'optimizer states sharded', 'optimizer states and gradients sharded', 'weights, gradients and optimizer states sharded (ZeRO-3 / FSDP)'][zero]}`,
      `activations: micro-batch ${batch} × context ${context} per device, bf16, SDPA attention, ` +
        (checkpointing ? 'gradient checkpointing (one layer input kept per layer, one layer recomputed at a time)' : 'no gradient checkpointing'),
      'peak: the larger of the activations (before backward) and the AdamW step temporaries (after), on top of the weights, gradients and states',
      `device: ${devices.fact.name}, ${devices.fact.total_bytes.toLocaleString('en-US')} bytes`,
      'GiB = 2^30 bytes',
      ...resolved.notes,
    ],
  }
}

function verdictOf(
  i: Input,
  resolved: ResolvedModel,
  devices: ResolvedDevices,
  weightsDtype: ReturnType<typeof weightsFact>,
  f: FitVerdict & { components: FitComponent[] },
  margin: number,
) {
  return {
    model: resolved.model,
    mode: i.mode,
    parameters: resolved.params,
    devices: devices.fact,
    weights_dtype: weightsDtype,
    components: f.components,
    per_device_bytes: f.per_device_bytes,
    per_device_gib: f.per_device_bytes / GIB,
    device_capacity_bytes: f.device_capacity_bytes,
    margin_bytes: margin,
    fits: f.fits,
    headroom_bytes: f.headroom_bytes,
    headroom_gib: f.headroom_bytes / GIB,
    headroom_fraction: f.headroom_fraction,
  }
}
