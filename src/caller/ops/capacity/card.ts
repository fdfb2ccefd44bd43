// POST /card: one capacity card for a model on declared devices, as JSON and as Markdown.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { capacityCard, cardMarkdown } from '../../../engines/capacity/card.js'
import { DTYPE_NAMES } from '../../../engines/capacity/dtypes.js'
import { tensorParallelProblems } from '../../../engines/capacity/fit.js'
import { PEFT_DEFAULT_TARGETS, PEFT_TARGETS_SOURCE, resolveTargets, type ModuleName } from '../../../engines/capacity/peft.js'
import { CURRENT, LAYOUT_SOURCES, loraForLayout } from '../../../engines/capacity/lora-layout.js'
import {
  archOutput, CAPACITY_LIMITS, CATALOGUE_SOURCES, effectiveWindow, GIB, kvDtype, modelFields, modelOutput,
  paramsOutput, resolveModel,
} from './common.js'
import { deviceOutput, devicesInput, resolveDevices } from './devices.js'
import { SERVING_DEFAULTS } from './fit.js'

const input = z
  .object({
    ...modelFields,
    devices: devicesInput.describe('The devices the card is for (declared by the caller)'),
    kv_dtype: z.enum(DTYPE_NAMES).default('fp16'),
    ranks: z.array(z.number().int().min(1)).min(1).max(16).default([8, 16, 32, 64]),
    overhead_percent: z.number().min(0).max(400).optional().describe('An extra declared overhead as % of the weights; none by default'),
    reserved_gib_per_device: z.number().min(0).max(1024).default(0),
  })
  .strict()

const output = z.object({
  model: modelOutput,
  arch: archOutput,
  parameters: paramsOutput,
  weights: z.array(z.object({ dtype: z.enum(DTYPE_NAMES), bytes: z.number(), gib: z.number() })),
  kv_per_token: z.array(z.object({ dtype: z.enum(DTYPE_NAMES), bytes: z.number() })),
  devices: deviceOutput,
  tensor_parallel: z.number().int(),
  max_context: z.array(
    z.object({
      weights_dtype: z.enum(DTYPE_NAMES),
      kv_dtype: z.enum(DTYPE_NAMES),
      batch: z.literal(1),
      fits_weights: z.boolean(),
      max_context_tokens: z.number().int().nullable(),
      limited_by: z.enum(['memory', 'max_context']).nullable(),
    }),
  ),
  lora: z.array(
    z.object({
      targets: z.string(),
      modules: z.array(z.string()),
      r: z.number().int(),
      trainable_params: z.number(),
      adapter_bytes: z.number(),
    }),
  ),
  assumptions: z.array(z.string()),
  markdown: z.string(),
})

export const card = defineOperation({
  name: 'card',
  method: 'POST',
  path: '/card',
  lobe: 'capacity',
  caption: 'Capacity card of a model on declared devices (JSON and Markdown)',
  summary:
    'Parameters (total, active, non-embedding), weight memory in every dtype, KV bytes per token, the largest context ' +
    "that fits at batch 1 for bf16, int8 and int4 weights (tensor parallel over all devices, /fit's transformers serving " +
    "model with the model's own windows), and LoRA adapter sizes (transformers 5 / peft 0.21 layout) at " +
    "common ranks for PEFT's default targets and all-linear — as JSON and as a Markdown card. Refuses unknown presets, " +
    'device counts the model cannot be split over, and 4-bit KV formats.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: [...CATALOGUE_SOURCES, PEFT_TARGETS_SOURCE, LAYOUT_SOURCES['5.x']],
  checkLimits: (i) => {
    const over = i.ranks.find((r) => r > CAPACITY_LIMITS.max_lora_rank)
    if (over) throw new Refusal('over_limit', `rank ${over} is over the limit of ${CAPACITY_LIMITS.max_lora_rank}`)
  },
  examples: [
    { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 } },
    { model: 'mixtral-8x7b', devices: { count: 2, gpu: 'h100-sxm-80gb' } },
  ],
  handler: (i) => {
    const resolved = resolveModel(i)
    kvDtype(i.kv_dtype, 'kv_dtype')
    const problems = tensorParallelProblems(resolved.arch, i.devices.count, i.devices.count)
    if (problems.length) {
      throw new Refusal('invalid_input', `the card splits the model over all ${i.devices.count} devices: ${problems.join('; ')}`, {
        issues: problems.map((message) => ({ path: 'devices.count', message })),
      })
    }
    const devices = resolveDevices(i.devices)
    const targets: Array<{ name: string; modules: ModuleName[]; isDefault: boolean }> = []
    const defaults = resolved.model_type ? PEFT_DEFAULT_TARGETS[resolved.model_type] : undefined
    if (defaults) targets.push({ name: `default (${defaults.join(', ')})`, modules: defaults, isDefault: true })
    const all = resolveTargets(resolved.arch, 'all-linear')
    if (all.ok) targets.push({ name: 'all-linear', modules: all.modules, isDefault: false })
    const c = capacityCard({
      model: resolved.model,
      arch: resolved.arch,
      devices: devices.spec,
      devicesFact: devices.fact,
      window: effectiveWindow(resolved.arch, true),
      serving: {
        runtime: 'transformers',
        prefill_chunk: SERVING_DEFAULTS.prefill_chunk,
        gpu_memory_utilization: SERVING_DEFAULTS.gpu_memory_utilization,
        max_num_batched_tokens: SERVING_DEFAULTS.max_num_batched_tokens,
        max_num_seqs: SERVING_DEFAULTS.max_num_seqs,
        block_size: SERVING_DEFAULTS.block_size,
      },
      marginFraction: SERVING_DEFAULTS.margin_percent / 100,
      countLora: (modules, r) => {
        const isDefault = targets.find((t) => t.modules === modules)?.isDefault ?? false
        const n = loraForLayout(resolved.arch, resolved.model_type, r, modules, CURRENT, isDefault)
        return n.ok ? n.trainable : null
      },
      contextDtypes: ['bf16', 'int8', 'int4'],
      kvDtype: i.kv_dtype,
      overheadPercent: i.overhead_percent ?? null,
      reservedBytesPerDevice: i.reserved_gib_per_device * GIB,
      ranks: [...new Set(i.ranks)].sort((a, b) => a - b),
      loraTargets: targets,
      adapterDtype: 'bf16',
    })
    return { ...c, model: resolved.model, devices: devices.fact, markdown: cardMarkdown(c) }
  },
})
