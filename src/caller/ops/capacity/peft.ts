// POST /peft: LoRA / QLoRA / full fine-tuning — trainable parameters per module and memory against full fine-tuning.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { PEFT_TARGETS_SOURCE } from '../../../engines/capacity/peft.js'
import { adaptedInputsPerLayer, LAYOUT_SOURCES } from '../../../engines/capacity/lora-layout.js'
import { trainingActivationBytes, trainingActivationTerms } from '../../../engines/capacity/activations.js'
import {
  CATALOGUE_SOURCES, dtypeFact, dtypeInput, dtypeOutput, followsFact, followsInput, followsOutput, GIB, modelFields,
  modelOutput, paramsOutput, resolveModel, targetModulesInput,
} from './common.js'
import { accountingInput, accountingOutput, fineTune, methodInput } from './training.js'

const input = z
  .object({
    ...modelFields,
    method: methodInput.default('lora'),
    r: z.number().int().min(1).default(16).describe('LoRA rank'),
    target_modules: targetModulesInput.default('default'),
    dtype: dtypeInput.optional().describe('Base weights: default bf16 (lora, full) or nf4 (qlora)'),
    accounting: accountingInput.optional().describe('Default zero_16 for full, fp32_16 (fp32 adapters) for lora/qlora'),
    follows: followsInput.default({ transformers: '5.x', peft: '0.21' }),
    context: z.number().int().min(1).optional().describe("Tokens per sequence for the activations, default the model's max_context up to 4096"),
    batch: z.number().int().min(1).default(1).describe('Micro-batch for the activations'),
    gradient_checkpointing: z.boolean().default(false),
  })
  .strict()

const memoryLine = z.object({ bytes: z.number(), gib: z.number() })

const output = z.object({
  model: modelOutput,
  method: z.enum(['full', 'lora', 'qlora']),
  r: z.number().int().nullable(),
  target_modules: z.array(z.string()).nullable(),
  targets_source: z.string().nullable(),
  follows: followsOutput,
  parameters: paramsOutput,
  trainable_params: z.number(),
  total_params: z.number(),
  trainable_fraction: z.number(),
  modules: z.array(
    z.object({
      module: z.string(),
      d_in: z.number().int(),
      d_out: z.number().int(),
      count: z.number().int(),
      params_each: z.number(),
      params: z.number(),
      rank: z.number().int(),
      experts: z.number().int(),
      target: z.enum(['module', 'parameter']),
    }),
  ),
  base_dtype: dtypeOutput,
  accounting: accountingOutput,
  memory: z.object({
    frozen_weights: memoryLine,
    trainable_weights: memoryLine,
    gradients: memoryLine,
    optimizer_states: memoryLine,
    total: memoryLine,
    activations: z.object({
      bytes: z.number(),
      gib: z.number(),
      batch: z.number().int(),
      context: z.number().int(),
      gradient_checkpointing: z.boolean(),
      formula: z.string(),
    }),
    total_with_activations: memoryLine,
  }),
  full_ft_total: memoryLine,
  ratio_to_full: z.number(),
  assumptions: z.array(z.string()),
})

const line = (bytes: number) => ({ bytes, gib: bytes / GIB })

export const peft = defineOperation({
  name: 'peft',
  method: 'POST',
  path: '/peft',
  lobe: 'capacity',
  caption: 'LoRA, QLoRA or full fine-tuning: trainable parameters and memory',
  summary:
    'Trainable parameters are r·(d_in + d_out) per adapted Linear, listed per module (q/k/v/o, gate/up/down, fused ' +
    "qkv/gate_up, MoE router), for PEFT's default targets of the model type, all-linear, or named modules. Memory: " +
    'frozen base weights in their format (NF4 with double quantisation for QLoRA), then trainable weights, gradients and ' +
    'optimizer states under the stated accounting (16 or 18 bytes per parameter), and the ratio to full fine-tuning. ' +
    'Counts follow the named library versions (follows; default transformers 5, peft 0.21): under transformers 5 ' +
    "Mixtral's experts are fused 3-D parameters that PEFT adapts with r·experts·(in + out), rank doubled on gate_up_proj. " +
    'Activations for micro-batch × context, with or without gradient checkpointing, are answered beside the state ' +
    '(/fit in training mode adds the runtime and the optimizer step). Refuses modules the model does not ' +
    'have, missing default targets (Phi-3, DeepSeek; Mixtral under transformers 5, as PEFT does), half of a fused pair, ' +
    'and base dtypes that do not suit the method.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: [...CATALOGUE_SOURCES, PEFT_TARGETS_SOURCE, LAYOUT_SOURCES['5.x']],
  refusals: ['over_limit'],
  examples: [
    { model: 'qwen2.5-3b', r: 16 },
    { model: 'llama-3.2-1b', r: 8, target_modules: ['q_proj'] },
    { model: 'llama-3.1-8b', method: 'qlora', r: 64, target_modules: 'all-linear' },
    { model: 'mistral-7b', method: 'full', accounting: 'hf_18' },
    { model: 'mixtral-8x7b', r: 8, target_modules: 'all-linear' },
    { model: 'mixtral-8x7b', r: 16, target_modules: ['w1', 'w2', 'w3'], follows: { transformers: '4.x', peft: '0.21' } },
  ],
  handler: (i) => {
    const resolved = resolveModel(i)
    const plan = fineTune(resolved, {
      method: i.method,
      r: i.r,
      targetModules: i.target_modules,
      dtype: i.dtype,
      accounting: i.accounting,
      follows: i.follows,
    })
    const m = plan.memory
    const context = i.context ?? Math.min(4096, resolved.arch.max_context ?? 4096)
    const terms = trainingActivationTerms(
      resolved.arch,
      m.method === 'full',
      plan.lora ? { d_in: adaptedInputsPerLayer(resolved.arch, plan.lora.modules), r: plan.r ?? 16 } : null,
    )
    const activations = trainingActivationBytes(resolved.arch, terms, i.batch * context, i.gradient_checkpointing)
    return {
      model: resolved.model,
      method: m.method,
      r: plan.r,
      target_modules: plan.targets?.modules ?? null,
      targets_source: plan.targets?.source ?? null,
      follows: followsFact(i.follows),
      parameters: resolved.params,
      trainable_params: m.trainable_params,
      total_params: m.total_params,
      trainable_fraction: m.trainable_fraction,
      modules: plan.lora?.modules ?? [],
      base_dtype: dtypeFact(plan.baseDtype),
      accounting: plan.accounting,
      memory: {
        frozen_weights: line(m.frozen_weights),
        trainable_weights: line(m.trainable_weights),
        gradients: line(m.gradients),
        optimizer_states: line(m.optimizer_states),
        total: line(m.total),
        activations: { ...line(activations), batch: i.batch, context, gradient_checkpointing: i.gradient_checkpointing, formula: terms.formula },
        total_with_activations: line(m.total + activations),
      },
      full_ft_total: line(m.full_ft_total),
      ratio_to_full: m.ratio_to_full,
      assumptions: [
        ...plan.assumptions,
        `activations: micro-batch ${i.batch} × context ${context}, ${i.gradient_checkpointing ? 'with' : 'without'} gradient ` +
          'checkpointing, not in total (total is the state kept between steps); /fit in training mode adds the runtime and the step peak',
        ...resolved.notes,
        'GiB = 2^30 bytes',
      ],
    }
  },
})
