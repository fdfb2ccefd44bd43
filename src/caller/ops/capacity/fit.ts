// POST /fit: does a model fit the declared devices, for inference or fine-tuning, and with how much room?
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../refusal.js'
import { DTYPES, bytesPerValue, weightMemory } from '../../../engines/capacity/dtypes.js'
import { inferenceFit, tensorParallelProblems, trainingFit } from '../../../engines/capacity/fit.js'
import {
  CATALOGUE_SOURCES, checkTokens, devicesInput, dtypeFact, dtypeInput, dtypeOutput, GIB, kvDtype, modelFields,
  modelOutput, paramsOutput, resolveModel, targetModulesInput, type ResolvedModel,
} from './common.js'
import { accountingInput, accountingOutput, fineTune, methodInput } from './training.js'

const INFERENCE_ONLY = ['kv_dtype', 'context', 'batch', 'overhead_percent', 'tensor_parallel', 'sliding_window'] as const
const TRAINING_ONLY = ['method', 'r', 'target_modules', 'accounting', 'sharding', 'activation_gib'] as const

const input = z
  .object({
    ...modelFields,
    devices: devicesInput,
    mode: z.enum(['inference', 'training']).default('inference'),
    dtype: dtypeInput
      .optional()
      .describe('Weight format: default bf16 (inference, LoRA, full) or nf4 (QLoRA)'),
    reserved_gib_per_device: z.number().min(0).max(1024).default(0).describe('Memory per device taken before the model (CUDA context, runtime)'),
    // inference
    kv_dtype: dtypeInput.optional().describe('KV-cache format (inference), default fp16'),
    context: z.number().int().min(1).optional().describe('Tokens per sequence (inference), default 4096'),
    batch: z.number().int().min(1).optional().describe('Concurrent sequences per model replica (inference), default 1'),
    overhead_percent: z.number().min(0).max(400).optional().describe('Activations/buffers as % of weight bytes (inference), default 20'),
    tensor_parallel: z.number().int().min(1).optional().describe('Devices one replica is split over (inference), default all'),
    sliding_window: z.boolean().optional().describe('Apply the model sliding window to the KV cache (inference)'),
    // training
    method: methodInput.optional().describe('full, lora or qlora (training), default full'),
    r: z.number().int().min(1).optional().describe('LoRA rank (training), default 16'),
    target_modules: targetModulesInput.optional(),
    accounting: accountingInput.optional(),
    sharding: z.enum(['fully_sharded', 'replicated']).optional().describe('ZeRO-3/FSDP or DDP (training), default fully_sharded'),
    activation_gib: z.number().min(0).max(1_000_000).optional().describe('Activation memory per device, if known (training)'),
  })
  .strict()

const component = z.object({
  name: z.string(),
  bytes: z.number().nullable(),
  per_device_bytes: z.number().nullable(),
  note: z.string(),
})

const output = z.object({
  model: modelOutput,
  mode: z.enum(['inference', 'training']),
  parameters: paramsOutput,
  devices: z.object({ count: z.number().int(), memory_gib: z.number() }),
  weights_dtype: dtypeOutput,
  components: z.array(component),
  per_device_bytes: z.number(),
  per_device_gib: z.number(),
  device_capacity_bytes: z.number(),
  fits: z.boolean(),
  headroom_bytes: z.number(),
  headroom_gib: z.number(),
  headroom_fraction: z.number(),
  inference: z
    .object({
      kv_dtype: z.string(),
      context: z.number().int(),
      batch: z.number().int(),
      overhead_percent: z.number(),
      tensor_parallel: z.number().int(),
      replicas: z.number().int(),
      kv_heads_per_device: z.number(),
      max_batch_at_context: z.number().int(),
      max_context_by_memory: z.number().int().nullable(),
      max_context_at_batch: z.number().int().nullable(),
      max_context_limited_by: z.enum(['memory', 'max_context']).nullable(),
    })
    .nullable(),
  training: z
    .object({
      method: z.enum(['full', 'lora', 'qlora']),
      accounting: accountingOutput,
      total_params: z.number(),
      trainable_params: z.number(),
      trainable_fraction: z.number(),
      target_modules: z.array(z.string()).nullable(),
      r: z.number().int().nullable(),
      sharding: z.enum(['fully_sharded', 'replicated']),
      excluded: z.array(z.string()),
      ratio_to_full: z.number(),
      max_batch_at_context: z.null(),
      max_context_at_batch: z.null(),
      limits_reason: z.string(),
    })
    .nullable(),
  assumptions: z.array(z.string()),
})

type Input = z.output<typeof input>

function misplaced(i: Input): void {
  const wrong = (i.mode === 'inference' ? TRAINING_ONLY : INFERENCE_ONLY).filter((k) => i[k] !== undefined)
  if (wrong.length) {
    throw new Refusal('invalid_input', `${wrong.join(', ')} do(es) not apply to mode ${i.mode}`, {
      issues: wrong.map((k) => ({ path: k, message: `only for mode ${i.mode === 'inference' ? 'training' : 'inference'}` })),
    })
  }
}

export const fit = defineOperation({
  name: 'fit',
  method: 'POST',
  path: '/fit',
  lobe: 'capacity',
  caption: 'Does a model fit the declared devices, for inference or fine-tuning?',
  summary:
    'Inference: weights (per dtype, quantisation overhead stated) + KV cache at the context and batch + overhead % of the ' +
    'weights + reserved memory, split over tensor parallelism (weights evenly, KV heads split or replicated); answers ' +
    'fits, headroom, the largest batch at the context and the largest context at the batch. Training: full, LoRA or QLoRA ' +
    'with the chosen bytes-per-parameter accounting (16 or 18), sharded or replicated; activations only when declared. ' +
    'Every component is listed with its note. Refuses unknown presets, zero devices, tensor-parallel degrees the model ' +
    'cannot use, dtypes that do not apply (4-bit KV, quantised full fine-tuning) and fields of the other mode.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: CATALOGUE_SOURCES,
  checkLimits: (i) => checkTokens(i.context ?? 1, i.batch ?? 1),
  examples: [
    { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, context: 8192, batch: 4 },
    { model: 'llama-2-70b', devices: { count: 2, memory_gib: 80 }, dtype: 'int4', context: 4096 },
    { model: 'mistral-7b', devices: { count: 1, memory_gib: 24 }, mode: 'training', method: 'qlora', r: 16, target_modules: 'all-linear' },
  ],
  handler: (i) => {
    misplaced(i)
    const resolved = resolveModel(i)
    return i.mode === 'inference' ? fitInference(i, resolved) : fitTraining(i, resolved)
  },
})

/** Inference: weights, KV cache and overhead per device under tensor parallelism, and the limits memory sets. */
function fitInference(i: Input, resolved: ResolvedModel) {
  const { arch, params } = resolved
  const weightsDtype = DTYPES[i.dtype ?? 'bf16']
  const kv = kvDtype(i.kv_dtype ?? 'fp16', 'kv_dtype')
  const tp = i.tensor_parallel ?? i.devices.count
  const problems = tensorParallelProblems(arch, tp, i.devices.count)
  if (problems.length) {
    throw new Refusal('invalid_input', `tensor_parallel ${tp}: ${problems.join('; ')}`, {
      issues: problems.map((message) => ({ path: 'tensor_parallel', message })),
    })
  }
  const context = i.context ?? 4096
  const batch = i.batch ?? 1
  const overhead = i.overhead_percent ?? 20
  const weights = weightMemory(params, weightsDtype)
  const f = inferenceFit({
    arch,
    weightBytes: weights.bytes,
    kvBytesPerValue: bytesPerValue(kv),
    context,
    batch,
    overheadPercent: overhead,
    reservedBytesPerDevice: i.reserved_gib_per_device * GIB,
    devices: i.devices,
    tensorParallel: tp,
    applySlidingWindow: i.sliding_window ?? false,
    blockSize: 16,
  })
  const assumptions = [
    `weights: ${weightsDtype.statement}`,
    `KV cache: ${kv.name}, ${bytesPerValue(kv)} byte(s) per value, counted exactly (not by pages)` +
      (i.sliding_window ? ', sliding window applied' : ', every layer keeps every token'),
    `overhead: ${overhead}% of the weight bytes (activations, buffers, fragmentation; the EleutherAI ` +
      '"Transformer Math 101" rule of thumb of ~20%, quoted in accelerate\'s model-size-estimator docs)',
    `tensor parallel ${tp}: weights and overhead split evenly; ${f.kv_heads_per_device} KV head(s) per device; ` +
      `${f.replicas} replica(s), batch is per replica`,
    `GiB = 2^30 bytes; a device holds memory_gib × 2^30 bytes`,
  ]
  if (arch.max_context !== null && context > arch.max_context) {
    assumptions.push(`context ${context} is beyond the model's max_context ${arch.max_context}`)
  }
  return {
    model: resolved.model,
    mode: i.mode,
    parameters: params,
    devices: i.devices,
    weights_dtype: dtypeFact(weightsDtype),
    components: f.components,
    per_device_bytes: f.per_device_bytes,
    per_device_gib: f.per_device_bytes / GIB,
    device_capacity_bytes: f.device_capacity_bytes,
    fits: f.fits,
    headroom_bytes: f.headroom_bytes,
    headroom_gib: f.headroom_bytes / GIB,
    headroom_fraction: f.headroom_fraction,
    inference: {
      kv_dtype: kv.name,
      context,
      batch,
      overhead_percent: overhead,
      tensor_parallel: tp,
      replicas: f.replicas,
      kv_heads_per_device: f.kv_heads_per_device,
      max_batch_at_context: f.max_batch_at_context,
      max_context_by_memory: f.max_context_by_memory,
      max_context_at_batch: f.max_context_at_batch,
      max_context_limited_by: f.max_context_limited_by,
    },
    training: null,
    assumptions,
  }
}

/** Training / fine-tuning: the method's components, sharded or replicated over the devices. */
function fitTraining(i: Input, resolved: ResolvedModel) {
  const { params } = resolved
  const ft = fineTune(resolved, {
    method: i.method ?? 'full',
    r: i.r ?? 16,
    targetModules: i.target_modules ?? 'default',
    dtype: i.dtype,
    accounting: i.accounting,
  })
  const sharding = i.sharding ?? 'fully_sharded'
  const f = trainingFit({
    memory: ft.memory,
    devices: i.devices,
    sharding,
    activationBytesPerDevice: i.activation_gib === undefined ? null : i.activation_gib * GIB,
    reservedBytesPerDevice: i.reserved_gib_per_device * GIB,
  })
  return {
    model: resolved.model,
    mode: i.mode,
    parameters: params,
    devices: i.devices,
    weights_dtype: dtypeFact(ft.baseDtype),
    components: f.components,
    per_device_bytes: f.per_device_bytes,
    per_device_gib: f.per_device_bytes / GIB,
    device_capacity_bytes: f.device_capacity_bytes,
    fits: f.fits,
    headroom_bytes: f.headroom_bytes,
    headroom_gib: f.headroom_bytes / GIB,
    headroom_fraction: f.headroom_fraction,
    inference: null,
    training: {
      method: ft.memory.method,
      accounting: ft.accounting,
      total_params: ft.memory.total_params,
      trainable_params: ft.memory.trainable_params,
      trainable_fraction: ft.memory.trainable_fraction,
      target_modules: ft.targets?.modules ?? null,
      r: ft.r,
      sharding,
      excluded: f.excluded,
      ratio_to_full: ft.memory.ratio_to_full,
      max_batch_at_context: null,
      max_context_at_batch: null,
      limits_reason:
        'batch and context only change activation memory, which this estimate does not model; declare activation_gib',
    },
    assumptions: [
      ...ft.assumptions,
      sharding === 'fully_sharded'
        ? `fully sharded (ZeRO-3 / FSDP): every component split evenly over ${i.devices.count} device(s)`
        : 'replicated (DDP): every device holds every component',
      f.excluded.length ? 'activations not counted: fits means "fits before activations"' : 'activations as declared',
      'GiB = 2^30 bytes',
    ],
  }
}
