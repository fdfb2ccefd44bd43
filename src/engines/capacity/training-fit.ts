// Does fine-tuning fit? Weights, gradients, optimizer states and the step's own peak, activations, ZeRO sharding.
import { trainingActivationBytes, trainingActivationTerms, type LoraShape } from './activations.js'
import { largest, largestBatch, verdict, type DeviceSpec, type FitComponent, type FitVerdict } from './fit.js'
import type { Arch } from './models.js'
import type { FineTuneMemory } from './peft.js'

export type ZeroStage = 0 | 1 | 2 | 3

export const ZERO_SOURCE =
  'ZeRO (Rajbhandari et al. 2020, arXiv 1910.02054) §5: stage 1 partitions optimizer states, stage 2 also gradients, ' +
  'stage 3 also parameters, each over the data-parallel devices (DeepSpeed zero_optimization.stage)'

export const ADAMW_STEP_SOURCE =
  'pytorch/pytorch torch/optim/adamw.py (_multi_tensor_adam, foreach=True on CUDA): exp_avg_sq_sqrt = ' +
  'torch._foreach_sqrt(device_exp_avg_sqs) allocates one float32 tensor per parameter; the other updates are in place'

export interface TrainingPlanInput {
  arch: Arch
  memory: FineTuneMemory
  devices: DeviceSpec
  zeroStage: ZeroStage
  /** Micro-batch per device. */
  batch: number
  context: number
  gradientCheckpointing: boolean
  /** Adapted Linear inputs per layer and rank (LoRA/QLoRA), or null for full fine-tuning. */
  lora: LoraShape | null
  /** Bytes per optimizer-state value (float32 Adam moments: 4). */
  stateBytesPerValue: number
  /** Declared activation bytes per device instead of the estimate, or null. */
  declaredActivationBytes: number | null
  marginFraction: number
  declared: Array<{ name: string; per_device_bytes: number; note: string }>
}

export interface TrainingPlan extends FitVerdict {
  components: FitComponent[]
  zero_stage: ZeroStage
  activation_bytes: number
  activations_declared: boolean
  max_batch_at_context: number
  max_context_at_batch: number | null
  max_context_limited_by: 'memory' | 'max_context' | null
}

export function trainingPlan(i: TrainingPlanInput): TrainingPlan {
  const m = i.memory
  const a = i.arch
  const n = i.devices.count
  const dev = i.devices
  const z = i.zeroStage
  const shard = (bytes: number, from: ZeroStage) => Math.ceil(z >= from ? bytes / n : bytes)
  const terms = trainingActivationTerms(a, m.method === 'full', i.lora)
  const activationsOf = (batch: number, context: number) =>
    i.declaredActivationBytes ?? trainingActivationBytes(a, terms, batch * context, i.gradientCheckpointing)
  const stepTemp = m.trainable_params * i.stateBytesPerValue
  const margin = Math.ceil(i.marginFraction * dev.total_bytes)
  const declared = i.declared.reduce((s, d) => s + d.per_device_bytes, 0)
  const fixed =
    dev.cuda_context_bytes + dev.cublas_workspace_bytes + shard(m.frozen_weights, 3) + shard(m.trainable_weights, 3) +
    shard(m.gradients, 2) + shard(m.optimizer_states, 1) + declared + margin
  // Activations peak before backward frees them; the AdamW step's temporaries peak after. Gradients are counted
  // beside the activations (they fill as backward frees activations, so this is an upper bound).
  const needAt = (batch: number, context: number) => fixed + Math.max(activationsOf(batch, context), shard(stepTemp, 1))
  const act = activationsOf(i.batch, i.context)
  const cap = dev.total_bytes
  const on = (from: ZeroStage, what: string) => (z >= from ? `${what}; sharded over ${n} device(s) (ZeRO stage ${z})` : `${what}; on every device`)
  const ckpt = i.gradientCheckpointing
  const components: FitComponent[] = [
    { name: 'cuda_context', bytes: dev.cuda_context_bytes * n, per_device_bytes: dev.cuda_context_bytes, formula: 'per device, outside PyTorch', source: dev.cuda_context_source, note: 'taken before the model loads' },
    { name: 'cublas_workspace', bytes: dev.cublas_workspace_bytes * n, per_device_bytes: dev.cublas_workspace_bytes, formula: 'per device and stream', source: dev.cublas_workspace_source, note: 'allocated at the first matmul and kept' },
    { name: 'frozen_weights', bytes: m.frozen_weights, per_device_bytes: shard(m.frozen_weights, 3), formula: 'base parameters × bytes of the base format', source: 'weights_dtype', note: on(3, 'base weights that are not trained') },
    { name: 'trainable_weights', bytes: m.trainable_weights, per_device_bytes: shard(m.trainable_weights, 3), formula: 'trainable parameters × accounting weights bytes', source: 'accounting', note: on(3, 'trained weights and master copies') },
    { name: 'gradients', bytes: m.gradients, per_device_bytes: shard(m.gradients, 2), formula: 'trainable parameters × accounting gradient bytes', source: 'accounting', note: on(2, 'one gradient per trainable parameter') },
    { name: 'optimizer_states', bytes: m.optimizer_states, per_device_bytes: shard(m.optimizer_states, 1), formula: 'trainable parameters × accounting optimizer bytes', source: 'accounting', note: on(1, 'Adam moments (and float32 master weights in zero_16)') },
    {
      name: 'optimizer_step_peak',
      bytes: stepTemp,
      per_device_bytes: Math.max(0, shard(stepTemp, 1) - act),
      formula: `max(0, trainable parameters × ${i.stateBytesPerValue} B (sqrt of the second moment) − activations)`,
      source: ADAMW_STEP_SOURCE,
      note: `optimizer.step() takes ${shard(stepTemp, 1).toLocaleString('en-US')} B per device after backward has freed the activations; only what it needs beyond them adds to the peak`,
    },
    i.declaredActivationBytes === null
      ? {
          name: 'activations',
          bytes: act * n,
          per_device_bytes: act,
          formula: ckpt
            ? `batch ${i.batch} × context ${i.context} × (layers × ${terms.checkpoint_per_layer_per_token} B + one recomputed layer ${terms.per_layer_per_token} B + head ${terms.head_per_token} B)`
            : `batch ${i.batch} × context ${i.context} × (layers × ${terms.per_layer_per_token} B + head ${terms.head_per_token} B)`,
          source: `derived from the tensors autograd saves in the transformers decoder block (${terms.formula})${ckpt ? '; gradient checkpointing (non-reentrant) keeps each layer input and recomputes one layer at a time' : ''}`,
          note: 'saved for backward, per device micro-batch',
        }
      : { name: 'activations', bytes: act * n, per_device_bytes: act, formula: 'declared per device', source: 'declared by the caller (activation_gib)', note: 'as declared' },
    ...i.declared.map((d) => ({ name: d.name, bytes: d.per_device_bytes * n, per_device_bytes: d.per_device_bytes, formula: 'declared per device', source: 'declared by the caller', note: d.note })),
    { name: 'safety_margin', bytes: margin * n, per_device_bytes: margin, formula: `${(i.marginFraction * 100).toFixed(2)}% of the device's total bytes`, source: 'stated margin for the caching allocator', note: 'kept free' },
  ]
  const need = needAt(i.batch, i.context)
  const fitsAt = (batch: number, context: number) => needAt(batch, context) <= cap
  const maxBatch = largestBatch((b) => fitsAt(b, i.context), (b) => needAt(b, i.context), cap, 65_536)
  const byMemory = i.declaredActivationBytes !== null ? null : Math.max(0, largest((t) => fitsAt(i.batch, t), 1, 2 ** 40))
  const limits = [
    ...(byMemory === null ? [] : [{ by: 'memory' as const, tokens: byMemory }]),
    ...(a.max_context === null ? [] : [{ by: 'max_context' as const, tokens: a.max_context }]),
  ].sort((x, y) => x.tokens - y.tokens)
  return {
    components,
    ...verdict(need, cap),
    zero_stage: z,
    activation_bytes: act,
    activations_declared: i.declaredActivationBytes !== null,
    max_batch_at_context: maxBatch,
    max_context_at_batch: limits[0]?.tokens ?? null,
    max_context_limited_by: limits[0]?.by ?? null,
  }
}
