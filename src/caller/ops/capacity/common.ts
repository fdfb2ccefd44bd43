// Shared pieces of the capacity operations: model-or-arch input, dtypes, devices, limits and refusals.
import { z } from 'zod'
import { Refusal } from '../../../refusal.js'
import { DTYPE_NAMES, DTYPES, type Dtype, type DtypeName } from '../../../engines/capacity/dtypes.js'
import { archProblems, findModel, MODEL_IDS, type Arch, type ModelPreset } from '../../../engines/capacity/models.js'
import { countParams, type ParamCount } from '../../../engines/capacity/params.js'
import {
  PEFT_DEFAULT_TARGETS, PEFT_TARGETS_SOURCE, resolveTargets, type ModuleName,
} from '../../../engines/capacity/peft.js'

/** Declared limits of the capacity lobe; going over one is refused with over_limit, naming it. */
export const CAPACITY_LIMITS = {
  max_params: 1e14,
  max_tokens: 16_777_216,
  max_batch: 65_536,
  max_devices: 4096,
  max_device_memory_gib: 16_384,
  max_lora_rank: 4096,
} as const

const int = (min: number, max: number) => z.number().int().min(min).max(max)

export const archInput = z
  .object({
    name: z.string().min(1).max(100).optional().describe('A label for the architecture'),
    hidden: int(1, 131_072),
    layers: int(1, 4096),
    heads: int(1, 4096),
    kv_heads: int(1, 4096).optional().describe('Defaults to heads (MHA)'),
    head_dim: int(1, 16_384).optional().describe('Defaults to hidden / heads'),
    intermediate: int(1, 4_194_304).describe('MLP width (per expert for MoE)'),
    vocab: int(1, 16_777_216),
    tie_embeddings: z.boolean().default(false),
    experts: int(1, 4096).default(1),
    experts_per_token: int(1, 4096).optional().describe('Defaults to 1 (dense) — set it for MoE'),
    qkv_bias: z.boolean().default(false),
    norms_per_layer: int(0, 16).default(2),
    max_context: int(1, 1 << 30).nullable().optional(),
    sliding_window: int(1, 1 << 30).nullable().optional(),
    sliding_window_layers: int(0, 4096).optional().describe('Defaults to every layer when sliding_window is set'),
    fused_qkv: z.boolean().default(false),
    fused_gate_up: z.boolean().default(false),
  })
  .strict()

export type ArchInput = z.output<typeof archInput>

export const modelFields = {
  model: z.string().min(1).max(200).optional().describe(`A preset: ${MODEL_IDS.join(', ')} (or its Hugging Face repo)`),
  arch: archInput.optional().describe('An explicit architecture instead of a preset'),
}

export const dtypeInput = z.enum(DTYPE_NAMES)

export const devicesInput = z
  .object({
    count: z.number().int().min(1, 'at least one device is needed').max(CAPACITY_LIMITS.max_devices),
    memory_gib: z.number().positive().max(CAPACITY_LIMITS.max_device_memory_gib).describe('Memory of each device in GiB'),
  })
  .strict()

export const targetModulesInput = z
  .union([z.enum(['default', 'all-linear']), z.array(z.string().min(1).max(64)).min(1).max(32)])
  .describe("'default' (PEFT's targets for the model type), 'all-linear', or module names such as q_proj, v_proj")

export const archOutput = z.object({
  hidden: z.number().int(),
  layers: z.number().int(),
  heads: z.number().int(),
  kv_heads: z.number().int(),
  head_dim: z.number().int(),
  intermediate: z.number().int(),
  vocab: z.number().int(),
  tie_embeddings: z.boolean(),
  experts: z.number().int(),
  experts_per_token: z.number().int(),
  qkv_bias: z.boolean(),
  norms_per_layer: z.number().int(),
  max_context: z.number().int().nullable(),
  sliding_window: z.number().int().nullable(),
  sliding_window_layers: z.number().int(),
  fused_qkv: z.boolean(),
  fused_gate_up: z.boolean(),
})

export const modelOutput = z.object({
  id: z.string().nullable(),
  name: z.string(),
  hf_repo: z.string().nullable(),
  sources: z.array(z.string()),
})

export const paramsOutput = z.object({
  embedding: z.number(),
  lm_head: z.number(),
  attention: z.number(),
  attention_bias: z.number(),
  mlp: z.number(),
  router: z.number(),
  norms: z.number(),
  total: z.number(),
  active: z.number(),
  non_embedding: z.number(),
  linear: z.number(),
  non_linear: z.number(),
})

export const dtypeOutput = z.object({
  name: z.enum(DTYPE_NAMES),
  bits: z.number(),
  overhead_bits: z.number(),
  quantized: z.boolean(),
  statement: z.string(),
  source: z.string().nullable(),
})

export const dtypeFact = (d: Dtype) => ({
  name: d.name,
  bits: d.bits,
  overhead_bits: d.overhead_bits,
  quantized: d.quantized,
  statement: d.statement,
  source: d.source,
})

export interface ResolvedModel {
  preset: ModelPreset | null
  arch: Arch
  params: ParamCount
  model: z.output<typeof modelOutput>
}

/** The catalogue's sources, for operations that declare model facts. */
export const CATALOGUE_SOURCES = [
  'Lightning-AI/litgpt litgpt/config.py @ 26857050 (mirrors each model\'s Hugging Face config.json)',
  'Hugging Face config.json dumps of the catalogue models (transformers 4.36-4.45)',
  'meta-llama/llama-models models/sku_list.py (Llama 3.x dims)',
]

function archFromInput(a: ArchInput): Arch {
  const headDim = a.head_dim ?? a.hidden / a.heads
  if (!Number.isInteger(headDim)) {
    throw new Refusal('invalid_input', `hidden (${a.hidden}) is not a multiple of heads (${a.heads}); give head_dim`, {
      issues: [{ path: 'arch.head_dim', message: 'required when hidden / heads is not an integer' }],
    })
  }
  const sliding = a.sliding_window ?? null
  return {
    hidden: a.hidden,
    layers: a.layers,
    heads: a.heads,
    kv_heads: a.kv_heads ?? a.heads,
    head_dim: headDim,
    intermediate: a.intermediate,
    vocab: a.vocab,
    tie_embeddings: a.tie_embeddings,
    experts: a.experts,
    experts_per_token: a.experts_per_token ?? 1,
    qkv_bias: a.qkv_bias,
    norms_per_layer: a.norms_per_layer,
    max_context: a.max_context ?? null,
    sliding_window: sliding,
    sliding_window_layers: a.sliding_window_layers ?? (sliding === null ? 0 : a.layers),
    fused_qkv: a.fused_qkv,
    fused_gate_up: a.fused_gate_up,
  }
}

/** Exactly one of model (a preset) and arch; unknown presets are refused with the known ones in hints. */
export function resolveModel(input: { model?: string | undefined; arch?: ArchInput | undefined }): ResolvedModel {
  if ((input.model === undefined) === (input.arch === undefined)) {
    throw new Refusal('invalid_input', 'give exactly one of model (a preset name) and arch (an explicit architecture)', {
      issues: [{ path: input.model === undefined ? 'model' : 'arch', message: 'exactly one of model and arch is required' }],
      hints: { known_models: MODEL_IDS },
    })
  }
  let preset: ModelPreset | null = null
  let arch: Arch
  if (input.model !== undefined) {
    preset = findModel(input.model) ?? null
    if (!preset) {
      throw new Refusal('invalid_input', `unknown model "${input.model}"; use one of the presets or give arch`, {
        issues: [{ path: 'model', message: 'not a preset of the catalogue' }],
        hints: { known_models: MODEL_IDS },
      })
    }
    arch = preset.arch
  } else {
    arch = archFromInput(input.arch!)
    const problems = archProblems(arch)
    if (problems.length) {
      throw new Refusal('invalid_input', `the architecture is inconsistent: ${problems.join('; ')}`, {
        issues: problems.map((message) => ({ path: 'arch', message })),
      })
    }
  }
  const params = countParams(arch)
  if (params.total > CAPACITY_LIMITS.max_params) {
    throw new Refusal(
      'over_limit',
      `the architecture has ${params.total.toExponential(3)} parameters, over the limit of ${CAPACITY_LIMITS.max_params.toExponential(0)}`,
    )
  }
  return {
    preset,
    arch,
    params,
    model: preset
      ? { id: preset.id, name: preset.name, hf_repo: preset.hf_repo, sources: preset.sources }
      : { id: null, name: input.arch!.name ?? 'explicit architecture', hf_repo: null, sources: [] },
  }
}

export function kvDtype(name: DtypeName, field = 'dtype'): Dtype {
  const d = DTYPES[name]
  if (!d.kv) {
    throw new Refusal('invalid_input', `${name} is a weight-only format and cannot hold a KV cache`, {
      issues: [{ path: field, message: 'use fp32, fp16, bf16, fp8 or int8 for KV caches' }],
      hints: { kv_dtypes: DTYPE_NAMES.filter((n) => DTYPES[n].kv) },
    })
  }
  return d
}

export function checkTokens(tokens: number, batch: number): void {
  if (tokens > CAPACITY_LIMITS.max_tokens) {
    throw new Refusal('over_limit', `tokens ${tokens} is over the limit of ${CAPACITY_LIMITS.max_tokens}`)
  }
  if (batch > CAPACITY_LIMITS.max_batch) {
    throw new Refusal('over_limit', `batch ${batch} is over the limit of ${CAPACITY_LIMITS.max_batch}`)
  }
}

export interface ResolvedTargets {
  requested: string | string[]
  modules: ModuleName[]
  source: string
}

/** 'default' is PEFT's mapping for the preset's model type; module names are checked against the architecture. */
export function resolveLoraTargets(
  resolved: ResolvedModel,
  requested: 'default' | 'all-linear' | string[],
  field = 'target_modules',
): ResolvedTargets {
  const available = resolveTargets(resolved.arch, 'all-linear')
  const availableModules = available.ok ? available.modules : []
  if (requested === 'default') {
    const modules = resolved.preset ? PEFT_DEFAULT_TARGETS[resolved.preset.model_type] : undefined
    if (!modules) {
      throw new Refusal(
        'invalid_input',
        resolved.preset
          ? `PEFT has no default target modules for model type ${resolved.preset.model_type}; name them or use all-linear`
          : 'an explicit architecture has no PEFT default target modules; name them or use all-linear',
        { issues: [{ path: field, message: 'no default for this model' }], hints: { modules: availableModules } },
      )
    }
    return { requested, modules: [...modules], source: PEFT_TARGETS_SOURCE }
  }
  const r = resolveTargets(resolved.arch, requested)
  if (!r.ok) {
    throw new Refusal('invalid_input', `the model has no module(s) ${r.unknown.join(', ')}`, {
      issues: r.unknown.map((u) => ({ path: field, message: `unknown module ${u}` })),
      hints: { modules: r.available },
    })
  }
  return {
    requested,
    modules: r.modules,
    source:
      requested === 'all-linear'
        ? 'every Linear layer of the blocks, lm_head excluded (PEFT INCLUDE_LINEAR_LAYERS_SHORTHAND "all-linear"; the MoE router is an nn.Linear and is included)'
        : 'as requested',
  }
}

export const GIB = 2 ** 30
export const toGib = (bytes: number) => bytes / GIB
