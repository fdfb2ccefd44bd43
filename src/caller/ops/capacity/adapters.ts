// POST /adapters: many LoRA adapters on one base model — bytes each, in total, and how many fit a budget.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { adapterPlan } from '../../../engines/capacity/adapters.js'
import { DTYPES, bytesPerValue } from '../../../engines/capacity/dtypes.js'
import { PEFT_TARGETS_SOURCE } from '../../../engines/capacity/peft.js'
import { LAYOUT_SOURCES, loraForLayout } from '../../../engines/capacity/lora-layout.js'
import {
  CAPACITY_LIMITS, CATALOGUE_SOURCES, followsFact, followsInput, followsOutput, GIB, modelFields, modelOutput,
  resolveLoraTargets, resolveModel, targetModulesInput, type ResolvedModel,
} from './common.js'
import type { ModuleName } from '../../../engines/capacity/peft.js'

const input = z
  .object({
    ...modelFields,
    adapters: z
      .array(
        z
          .object({
            name: z.string().min(1).max(100).optional(),
            r: z.number().int().min(1),
            target_modules: targetModulesInput.default('default'),
            count: z.number().int().min(1).max(1_000_000).default(1).describe('How many adapters of this kind'),
          })
          .strict(),
      )
      .min(1)
      .max(64),
    dtype: z.enum(['fp32', 'fp16', 'bf16']).default('fp16').describe('Format the adapters are served in'),
    budget_gib: z.number().positive().max(1_000_000).optional().describe('Memory set aside for adapters'),
    follows: followsInput.default({ transformers: '5.x', peft: '0.21' }),
  })
  .strict()

const output = z.object({
  model: modelOutput,
  dtype: z.enum(['fp32', 'fp16', 'bf16']),
  follows: followsOutput,
  bytes_per_value: z.number(),
  adapters: z.array(
    z.object({
      name: z.string(),
      r: z.number().int(),
      target_modules: z.array(z.string()),
      count: z.number().int(),
      trainable_params: z.number(),
      bytes_each: z.number(),
      bytes: z.number(),
    }),
  ),
  total_adapters: z.number().int(),
  total_bytes: z.number(),
  total_gib: z.number(),
  budget_bytes: z.number().nullable(),
  fits_budget: z.boolean().nullable(),
  max_in_budget: z.array(z.object({ name: z.string(), max: z.number().int() })).nullable(),
  assumptions: z.array(z.string()),
})

export const adapters = defineOperation({
  name: 'adapters',
  method: 'POST',
  path: '/adapters',
  lobe: 'capacity',
  caption: 'Serving many LoRA adapters: bytes each, total, how many fit a budget',
  summary:
    'For each adapter kind (rank, target modules, count): r·(d_in + d_out) parameters per adapted Linear, bytes in the ' +
    'serving format, the total, whether they fit budget_gib and how many copies of each kind alone would. Refuses unknown ' +
    'presets and modules, ranks over the limit.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: [...CATALOGUE_SOURCES, PEFT_TARGETS_SOURCE, LAYOUT_SOURCES['5.x']],
  checkLimits: (i) => {
    const over = i.adapters.find((a) => a.r > CAPACITY_LIMITS.max_lora_rank)
    if (over) throw new Refusal('over_limit', `r ${over.r} is over the limit of ${CAPACITY_LIMITS.max_lora_rank}`)
  },
  examples: [
    { model: 'llama-3.1-8b', adapters: [{ r: 16, count: 50 }, { name: 'wide', r: 64, target_modules: 'all-linear', count: 4 }], budget_gib: 4 },
  ],
  handler: (i) => {
    const resolved = resolveModel(i)
    const countFor = (r: ResolvedModel, rank: number, modules: ModuleName[], isDefault: boolean, k: number) => {
      const n = loraForLayout(r.arch, r.model_type, rank, modules, i.follows, isDefault)
      if (!n.ok) {
        throw new Refusal('invalid_input', n.reason, { issues: [{ path: `adapters[${k}].${n.field === 'follows' ? 'target_modules' : n.field}`, message: n.reason }] })
      }
      return n.trainable
    }
    const bytes = bytesPerValue(DTYPES[i.dtype])
    const kinds = i.adapters.map((a, k) => {
      const targets = resolveLoraTargets(resolved, a.target_modules, `adapters[${k}].target_modules`)
      return {
        name: a.name ?? `adapter-${k + 1}`,
        r: a.r,
        modules: targets.modules,
        trainable_params: countFor(resolved, a.r, targets.modules, a.target_modules === 'default', k),
        count: a.count,
      }
    })
    const plan = adapterPlan(kinds, bytes, i.budget_gib === undefined ? null : i.budget_gib * GIB)
    return {
      model: resolved.model,
      dtype: i.dtype,
      follows: followsFact(i.follows),
      bytes_per_value: bytes,
      adapters: plan.adapters.map((a, k) => ({
        name: a.name,
        r: a.r,
        target_modules: kinds[k]!.modules,
        count: a.count,
        trainable_params: a.trainable_params,
        bytes_each: a.bytes_each,
        bytes: a.bytes,
      })),
      total_adapters: plan.total_adapters,
      total_bytes: plan.total_bytes,
      total_gib: plan.total_bytes / GIB,
      budget_bytes: plan.budget_bytes,
      fits_budget: plan.fits_budget,
      max_in_budget: plan.max_in_budget,
      assumptions: [
        `adapters stored in ${i.dtype} (${bytes} bytes per parameter): A (r×d_in) and B (d_out×r) per adapted Linear`,
        'runtimes that pre-allocate adapter slots at a maximum rank use that rank for every slot',
        'GiB = 2^30 bytes',
      ],
    }
  },
})
