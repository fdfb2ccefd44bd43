// POST /card: one capacity card for a model on declared devices, as JSON and as Markdown.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../refusal.js'
import { capacityCard, cardMarkdown } from '../../../engines/capacity/card.js'
import { DTYPE_NAMES } from '../../../engines/capacity/dtypes.js'
import { tensorParallelProblems } from '../../../engines/capacity/fit.js'
import { PEFT_DEFAULT_TARGETS, PEFT_TARGETS_SOURCE, resolveTargets, type ModuleName } from '../../../engines/capacity/peft.js'
import {
  archOutput, CAPACITY_LIMITS, CATALOGUE_SOURCES, devicesInput, GIB, kvDtype, modelFields, modelOutput, paramsOutput,
  resolveModel,
} from './common.js'

const input = z
  .object({
    ...modelFields,
    devices: devicesInput.describe('The devices the card is for (declared by the caller)'),
    kv_dtype: z.enum(DTYPE_NAMES).default('fp16'),
    ranks: z.array(z.number().int().min(1)).min(1).max(16).default([8, 16, 32, 64]),
    overhead_percent: z.number().min(0).max(400).default(20),
    reserved_gib_per_device: z.number().min(0).max(1024).default(0),
  })
  .strict()

const output = z.object({
  model: modelOutput,
  arch: archOutput,
  parameters: paramsOutput,
  weights: z.array(z.object({ dtype: z.enum(DTYPE_NAMES), bytes: z.number(), gib: z.number() })),
  kv_per_token: z.array(z.object({ dtype: z.enum(DTYPE_NAMES), bytes: z.number() })),
  devices: z.object({ count: z.number().int(), memory_gib: z.number() }),
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
    'that fits at batch 1 for bf16, int8 and int4 weights (tensor parallel over all devices), and LoRA adapter sizes at ' +
    "common ranks for PEFT's default targets and all-linear — as JSON and as a Markdown card. Refuses unknown presets, " +
    'device counts the model cannot be split over, and 4-bit KV formats.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: [...CATALOGUE_SOURCES, PEFT_TARGETS_SOURCE],
  checkLimits: (i) => {
    const over = i.ranks.find((r) => r > CAPACITY_LIMITS.max_lora_rank)
    if (over) throw new Refusal('over_limit', `rank ${over} is over the limit of ${CAPACITY_LIMITS.max_lora_rank}`)
  },
  examples: [{ model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 } }, { model: 'mixtral-8x7b', devices: { count: 2, memory_gib: 80 } }],
  handler: (i) => {
    const resolved = resolveModel(i)
    kvDtype(i.kv_dtype, 'kv_dtype')
    const problems = tensorParallelProblems(resolved.arch, i.devices.count, i.devices.count)
    if (problems.length) {
      throw new Refusal('invalid_input', `the card splits the model over all ${i.devices.count} devices: ${problems.join('; ')}`, {
        issues: problems.map((message) => ({ path: 'devices.count', message })),
      })
    }
    const targets: Array<{ name: string; modules: ModuleName[] }> = []
    const defaults = resolved.preset ? PEFT_DEFAULT_TARGETS[resolved.preset.model_type] : undefined
    if (defaults) targets.push({ name: `default (${defaults.join(', ')})`, modules: defaults })
    const all = resolveTargets(resolved.arch, 'all-linear')
    if (all.ok) targets.push({ name: 'all-linear', modules: all.modules })
    const c = capacityCard({
      model: resolved.model,
      arch: resolved.arch,
      devices: i.devices,
      contextDtypes: ['bf16', 'int8', 'int4'],
      kvDtype: i.kv_dtype,
      overheadPercent: i.overhead_percent,
      reservedBytesPerDevice: i.reserved_gib_per_device * GIB,
      ranks: [...new Set(i.ranks)].sort((a, b) => a - b),
      loraTargets: targets,
      adapterDtype: 'bf16',
    })
    return { ...c, markdown: cardMarkdown(c) }
  },
})
