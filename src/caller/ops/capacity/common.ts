// Shared pieces of the capacity operations: model-or-arch input, dtypes, devices, limits and refusals.
import { z } from 'zod'
import { Refusal } from '../../../http/refusal.js'
import { DTYPE_NAMES, DTYPES, type Dtype, type DtypeName } from '../../../engines/capacity/dtypes.js'
import {
  archProblems, completeArch, findModel, MODEL_IDS, uniformLayerTypes, type Arch, type ModelPreset,
} from '../../../engines/capacity/models.js'
import { CONFIG_MODEL_TYPES, readHfConfig } from '../../../engines/capacity/hf-config.js'
import { CURRENT, LAYOUT_SOURCES, type Follows } from '../../../engines/capacity/lora-layout.js'
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

const mlaInput = z
  .object({
    q_lora_rank: int(1, 131_072).nullable().default(null),
    kv_lora_rank: int(1, 131_072),
    qk_nope_head_dim: int(1, 16_384),
    qk_rope_head_dim: int(1, 16_384),
    v_head_dim: int(1, 16_384),
  })
  .strict()

const archFields = {
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
  sliding_window_layers: int(0, 4096).optional().describe('Defaults to every layer when sliding_window is set (the first N layers otherwise)'),
  layer_types: z
    .array(z.enum(['full_attention', 'sliding_attention']))
    .max(4096)
    .optional()
    .describe('Per layer, as config.layer_types (Gemma 2 alternates)'),
  fused_qkv: z.boolean().default(false),
  fused_gate_up: z.boolean().default(false),
  mla: mlaInput.nullable().optional().describe('DeepSeek-style multi-head latent attention'),
  shared_experts: int(0, 4096).optional(),
  dense_layers: int(0, 4096).optional().describe('Leading layers with a dense MLP (first_k_dense_replace)'),
  dense_intermediate: int(1, 4_194_304).optional().describe('Width of those dense MLPs'),
}

export const archInput = z.object(archFields).strict()

/** Fields that replace facts of a preset or a posted config (the model's own facts are the default). */
export const overridesInput = z
  .object({
    kv_heads: archFields.kv_heads,
    head_dim: archFields.head_dim,
    tie_embeddings: z.boolean().optional(),
    max_context: archFields.max_context,
    sliding_window: archFields.sliding_window,
    layer_types: archFields.layer_types,
    experts_per_token: archFields.experts_per_token,
  })
  .strict()

export type ArchInput = z.output<typeof archInput>

/** A Hugging Face config.json object: only the keys the reader knows are read, each checked before use. */
const configInput = z
  .record(z.string().max(128), z.unknown())
  .refine((c) => Object.keys(c).length <= 512, 'a config.json has at most 512 keys here')
  .describe(`A Hugging Face config.json object (model_type ${CONFIG_MODEL_TYPES.join(', ')})`)

export const modelFields = {
  model: z.string().min(1).max(200).optional().describe(`A preset: ${MODEL_IDS.join(', ')} (or its Hugging Face repo)`),
  arch: archInput.optional().describe('An explicit architecture instead of a preset'),
  config: configInput.optional(),
  overrides: overridesInput.optional().describe("Facts that replace the preset's or the config's own"),
}

export const followsInput = z
  .object({ transformers: z.enum(['5.x', '4.x']).default('5.x'), peft: z.literal('0.21').default('0.21') })
  .strict()
  .describe('The library versions the answer follows: transformers 5 (fused MoE experts) by default, or 4')

export const followsOutput = z.object({
  transformers: z.enum(['5.x', '4.x']),
  peft: z.literal('0.21'),
  source: z.string(),
})

export const followsFact = (f: Follows) => ({ ...f, source: LAYOUT_SOURCES[f.transformers] })

export { CURRENT as CURRENT_FOLLOWS }

export const dtypeInput = z.enum(DTYPE_NAMES)

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
  layer_types: z.array(z.enum(['full_attention', 'sliding_attention'])),
  fused_qkv: z.boolean(),
  fused_gate_up: z.boolean(),
  mla: z
    .object({
      q_lora_rank: z.number().int().nullable(),
      kv_lora_rank: z.number().int(),
      qk_nope_head_dim: z.number().int(),
      qk_rope_head_dim: z.number().int(),
      v_head_dim: z.number().int(),
    })
    .nullable(),
  shared_experts: z.number().int(),
  dense_layers: z.number().int(),
  dense_intermediate: z.number().int(),
})

export const modelOutput = z.object({
  id: z.string().nullable(),
  name: z.string(),
  hf_repo: z.string().nullable(),
  /** transformers model_type (selects PEFT defaults and the library's layout), or null for an explicit arch. */
  model_type: z.string().nullable(),
  /** Where the facts were read: the preset's config file, a posted config, or the caller's arch. */
  facts_from: z.enum(['preset', 'config', 'arch']),
  config_source: z
    .object({ file: z.string(), transformers_version: z.string().nullable(), via: z.string() })
    .nullable(),
  overridden: z.array(z.string()),
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
  /** transformers model_type: a preset's, a posted config's, or null for an explicit arch. */
  model_type: string | null
  model: z.output<typeof modelOutput>
  notes: string[]
}

/** The catalogue's sources, for operations that declare model facts. */
export const CATALOGUE_SOURCES = [
  'Lightning-AI/litgpt litgpt/config.py @ 26857050 (mirrors each model\'s Hugging Face config.json)',
  'Hugging Face config.json dumps of the catalogue models (transformers 4.36-4.45, 5.7 for DeepSeek-V2-Lite)',
  'meta-llama/llama-models models/sku_list.py (Llama 3.x dims)',
  'a posted config.json, read by src/engines/capacity/hf-config.ts the way transformers reads it',
]

function archFromInput(a: ArchInput): Arch {
  const headDim = a.mla ? a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim : a.head_dim ?? a.hidden / a.heads
  if (!Number.isInteger(headDim)) {
    throw new Refusal('invalid_input', `hidden (${a.hidden}) is not a multiple of heads (${a.heads}); give head_dim`, {
      issues: [{ path: 'arch.head_dim', message: 'required when hidden / heads is not an integer' }],
    })
  }
  const sliding = a.sliding_window ?? null
  const windowed = a.sliding_window_layers ?? (sliding === null ? 0 : a.layers)
  const layerTypes =
    a.layer_types ?? Array.from({ length: a.layers }, (_, i) => (sliding !== null && i < windowed ? 'sliding_attention' as const : 'full_attention' as const))
  return completeArch({
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
    layer_types: layerTypes,
    fused_qkv: a.fused_qkv,
    fused_gate_up: a.fused_gate_up,
    mla: a.mla ?? null,
    shared_experts: a.shared_experts ?? 0,
    dense_layers: a.dense_layers ?? 0,
    dense_intermediate: a.dense_intermediate ?? a.intermediate,
  })
}

/** The model's own facts with the caller's replacements; a window that appears applies to every layer. */
function applyOverrides(a: Arch, o: z.output<typeof overridesInput>): { arch: Arch; overridden: string[] } {
  const overridden = Object.keys(o).filter((k) => o[k as keyof typeof o] !== undefined)
  const sliding = o.sliding_window === undefined ? a.sliding_window : o.sliding_window
  const keepTypes = a.sliding_window !== null && sliding !== null
  const layerTypes = o.layer_types ?? (keepTypes ? a.layer_types : uniformLayerTypes(a.layers, sliding !== null))
  return {
    overridden,
    arch: completeArch({
      ...a,
      ...(o.kv_heads !== undefined ? { kv_heads: o.kv_heads } : {}),
      ...(o.head_dim !== undefined ? { head_dim: o.head_dim } : {}),
      ...(o.tie_embeddings !== undefined ? { tie_embeddings: o.tie_embeddings } : {}),
      ...(o.max_context !== undefined ? { max_context: o.max_context } : {}),
      ...(o.experts_per_token !== undefined ? { experts_per_token: o.experts_per_token } : {}),
      sliding_window: sliding,
      layer_types: layerTypes,
    }),
  }
}

type ModelChoice = {
  model?: string | undefined
  arch?: ArchInput | undefined
  config?: Record<string, unknown> | undefined
  overrides?: z.output<typeof overridesInput> | undefined
}

/** Exactly one of model (a preset), arch and config; unknown presets and unreadable configs are refused, named. */
export function resolveModel(input: ModelChoice): ResolvedModel {
  const given = (['model', 'arch', 'config'] as const).filter((k) => input[k] !== undefined)
  if (given.length !== 1) {
    throw new Refusal('invalid_input', 'give exactly one of model (a preset name), arch (an explicit architecture) and config (a config.json)', {
      issues: [{ path: given[1] ?? 'model', message: 'exactly one of model, arch and config is required' }],
      hints: { known_models: MODEL_IDS },
    })
  }
  let preset: ModelPreset | null = null
  let arch: Arch
  let modelType: string | null = null
  let model: z.output<typeof modelOutput>
  const notes: string[] = []
  if (input.model !== undefined) {
    preset = findModel(input.model) ?? null
    if (!preset) {
      throw new Refusal('invalid_input', `unknown model "${input.model}"; use one of the presets or give arch`, {
        issues: [{ path: 'model', message: 'not a preset of the catalogue' }],
        hints: { known_models: MODEL_IDS },
      })
    }
    arch = preset.arch
    modelType = preset.model_type
    model = {
      id: preset.id, name: preset.name, hf_repo: preset.hf_repo, model_type: preset.model_type, facts_from: 'preset',
      config_source: preset.config_source, overridden: [], sources: preset.sources,
    }
  } else if (input.config !== undefined) {
    const read = readHfConfig(input.config)
    if (!read.ok) {
      throw new Refusal('invalid_input', `the config cannot be interpreted: ${read.problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`, {
        issues: read.problems.map((p) => ({ path: `config.${p.key}`, message: p.message })),
        hints: { model_types: CONFIG_MODEL_TYPES },
      })
    }
    arch = read.arch
    modelType = read.model_type
    notes.push(...read.notes)
    const name = typeof input.config._name_or_path === 'string' ? input.config._name_or_path.slice(0, 100) : `posted ${read.model_type} config`
    model = {
      id: null, name, hf_repo: null, model_type: read.model_type, facts_from: 'config',
      config_source: { file: 'config.json (posted)', transformers_version: read.transformers_version, via: 'read key by key as transformers reads it' },
      overridden: [], sources: ['the posted config.json'],
    }
  } else {
    arch = archFromInput(input.arch!)
    model = {
      id: null, name: input.arch!.name ?? 'explicit architecture', hf_repo: null, model_type: null, facts_from: 'arch',
      config_source: null, overridden: [], sources: [],
    }
  }
  if (input.overrides) {
    const o = applyOverrides(arch, input.overrides)
    arch = o.arch
    model = { ...model, overridden: o.overridden }
  }
  const problems = archProblems(arch)
  if (problems.length) {
    throw new Refusal('invalid_input', `the architecture is inconsistent: ${problems.join('; ')}`, {
      issues: problems.map((message) => ({ path: given[0]!, message })),
    })
  }
  const params = countParams(arch)
  if (params.total > CAPACITY_LIMITS.max_params) {
    throw new Refusal(
      'over_limit',
      `the architecture has ${params.total.toExponential(3)} parameters, over the limit of ${CAPACITY_LIMITS.max_params.toExponential(0)}`,
    )
  }
  return { preset, arch, params, model_type: modelType, model, notes }
}

/** The window the runtime applies: the model's own by default, none when false, another size when a number. */
export function effectiveWindow(a: Arch, requested: boolean | number | undefined): number | null {
  if (typeof requested === 'number' && a.sliding_window_layers === 0) {
    throw new Refusal('invalid_input', 'the model has no sliding layers to resize; give overrides.sliding_window to add a window on every layer', {
      issues: [{ path: 'sliding_window', message: 'the model declares no sliding window' }],
    })
  }
  if (requested === false || a.sliding_window_layers === 0) return null
  if (typeof requested === 'number') return requested
  return a.sliding_window
}

export const slidingWindowInput = z
  .union([z.boolean(), z.number().int().min(1).max(1 << 30)])
  .describe("The model's own windows by default (true); false keeps every token on every layer; a number replaces the window size")

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
    const modules = resolved.model_type ? PEFT_DEFAULT_TARGETS[resolved.model_type] : undefined
    if (!modules) {
      throw new Refusal(
        'invalid_input',
        resolved.model_type
          ? `PEFT has no default target modules for model type ${resolved.model_type}; name them or use all-linear`
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
