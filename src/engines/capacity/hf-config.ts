// A Hugging Face config.json → the architecture facts, read the way transformers reads it; what it cannot read it names.
import { alternatingLayerTypes, completeArch, type Arch, type LayerType, type Mla } from './models.js'

export interface ConfigProblem {
  /** The config key (dotted, with [i] for list entries) that could not be interpreted. */
  key: string
  message: string
}

export type ConfigReading =
  | { ok: true; arch: Arch; model_type: string; transformers_version: string | null; notes: string[] }
  | { ok: false; problems: ConfigProblem[] }

/** The model types whose config keys are mapped here, with the transformers defaults that differ between them. */
const FAMILIES = {
  llama: { tie: false, norms: 2 },
  mistral: { tie: false, norms: 2 },
  mixtral: { tie: false, norms: 2 },
  qwen2: { tie: false, norms: 2 },
  gemma: { tie: true, norms: 2 },
  gemma2: { tie: true, norms: 4 },
  phi3: { tie: false, norms: 2 },
  deepseek_v2: { tie: false, norms: 2 },
  deepseek_v3: { tie: false, norms: 2 },
} as const

export const CONFIG_MODEL_TYPES = Object.keys(FAMILIES)

/** Keys whose presence changes the memory in a way this reader does not model. */
const UNMODELLED: Record<string, string> = {
  quantization_config: 'a pre-quantised checkpoint: remove the key and give the weight format as dtype',
  text_config: 'a multimodal wrapper: post its text_config object as config',
  num_kv_shared_layers: 'KV sharing across layers is not modelled',
  attention_chunk_size: 'chunked attention is not modelled',
}

const LIMITS = { dim: 4_194_304, layers: 4096, heads: 4096, vocab: 16_777_216, context: 1 << 30 }

/** Reads a config.json object; every number is checked for type and range before it is used. */
export function readHfConfig(config: Record<string, unknown>): ConfigReading {
  const problems: ConfigProblem[] = []
  const fail = (key: string, message: string) => {
    problems.push({ key, message })
    return undefined
  }
  const int = (key: string, max: number, required: boolean, min = 1): number | undefined => {
    const v = config[key]
    if (v === undefined || v === null) return required ? fail(key, 'required and missing') : undefined
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      return fail(key, `must be an integer from ${min} to ${max}`)
    }
    return v
  }
  const bool = (key: string): boolean | undefined => {
    const v = config[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'boolean') return fail(key, 'must be true or false')
    return v
  }

  const modelType = config.model_type
  if (typeof modelType !== 'string' || !(modelType in FAMILIES)) {
    return {
      ok: false,
      problems: [{ key: 'model_type', message: `must be one of ${CONFIG_MODEL_TYPES.join(', ')}; got ${JSON.stringify(modelType ?? null)}` }],
    }
  }
  const family = FAMILIES[modelType as keyof typeof FAMILIES]
  for (const [key, why] of Object.entries(UNMODELLED)) if (config[key] !== undefined && config[key] !== null) fail(key, why)
  if (bool('attention_bias') === true) fail('attention_bias', 'biases on every attention projection are not modelled')
  if (bool('mlp_bias') === true) fail('mlp_bias', 'MLP biases are not modelled')

  const hidden = int('hidden_size', LIMITS.dim, true)
  const layers = int('num_hidden_layers', LIMITS.layers, true)
  const heads = int('num_attention_heads', LIMITS.heads, true)
  const kvHeads = int('num_key_value_heads', LIMITS.heads, false)
  const vocab = int('vocab_size', LIMITS.vocab, true)
  const maxContext = int('max_position_embeddings', LIMITS.context, false)
  const tie = bool('tie_word_embeddings') ?? family.tie
  const isDeepseek = modelType === 'deepseek_v2' || modelType === 'deepseek_v3'
  const isMoe = modelType === 'mixtral' || isDeepseek

  const denseIntermediate = int('intermediate_size', LIMITS.dim, true)
  let intermediate = denseIntermediate
  let experts = 1
  let perToken = 1
  let shared = 0
  let denseLayers = 0
  if (modelType === 'mixtral') {
    experts = int('num_local_experts', 4096, true) ?? 1
    perToken = int('num_experts_per_tok', 4096, true) ?? 1
  }
  let mla: Mla | null = null
  if (isDeepseek) {
    intermediate = int('moe_intermediate_size', LIMITS.dim, true)
    experts = int('n_routed_experts', 4096, true) ?? 1
    perToken = int('num_experts_per_tok', 4096, true) ?? 1
    shared = int('n_shared_experts', 4096, false, 0) ?? 0
    denseLayers = int('first_k_dense_replace', LIMITS.layers, false, 0) ?? 0
    const freq = int('moe_layer_freq', LIMITS.layers, false)
    if (freq !== undefined && freq !== 1) fail('moe_layer_freq', 'only 1 (every layer after the dense ones) is modelled')
    const qLora = config.q_lora_rank === null || config.q_lora_rank === undefined ? null : int('q_lora_rank', LIMITS.dim, true)
    const kvLora = int('kv_lora_rank', LIMITS.dim, true)
    const nope = int('qk_nope_head_dim', 16_384, true)
    const rope = int('qk_rope_head_dim', 16_384, true)
    const v = int('v_head_dim', 16_384, true)
    if (kvLora !== undefined && nope !== undefined && rope !== undefined && v !== undefined && qLora !== undefined) {
      mla = { q_lora_rank: qLora, kv_lora_rank: kvLora, qk_nope_head_dim: nope, qk_rope_head_dim: rope, v_head_dim: v }
    }
  }
  if (experts > 1 && perToken > experts) fail('num_experts_per_tok', `exceeds the ${experts} experts`)

  let headDim = mla ? mla.qk_nope_head_dim + mla.qk_rope_head_dim : int('head_dim', 16_384, false)
  if (headDim === undefined && hidden !== undefined && heads !== undefined) {
    if (hidden % heads !== 0) fail('head_dim', 'missing, and hidden_size is not a multiple of num_attention_heads')
    else headDim = hidden / heads
  }
  if (kvHeads !== undefined && heads !== undefined && (kvHeads > heads || heads % kvHeads !== 0)) {
    fail('num_key_value_heads', `must divide num_attention_heads (${heads})`)
  }

  // Which layers attend through a window, as the library builds its cache.
  let window = int('sliding_window', LIMITS.context, false) ?? null
  if (modelType === 'qwen2' && bool('use_sliding_window') !== true) window = null
  if (modelType === 'gemma2' && window === null && config.sliding_window === undefined) window = 4096
  let layerTypes: LayerType[] | undefined
  const declared = config.layer_types
  if (declared !== undefined && declared !== null) {
    if (!Array.isArray(declared) || declared.length !== layers) {
      fail('layer_types', `must list one entry per layer (${layers ?? '?'})`)
    } else {
      declared.forEach((t, i) => {
        if (t !== 'full_attention' && t !== 'sliding_attention') {
          fail(`layer_types[${i}]`, `"${String(t)}" is not modelled (full_attention or sliding_attention)`)
        }
      })
      layerTypes = declared as LayerType[]
    }
  } else if (layers !== undefined) {
    if (modelType === 'gemma2') layerTypes = alternatingLayerTypes(layers)
    else if (modelType === 'qwen2') {
      const from = int('max_window_layers', LIMITS.layers, false, 0) ?? layers
      layerTypes = Array.from({ length: layers }, (_, i) => (window !== null && i >= from ? 'sliding_attention' : 'full_attention'))
    }
  }
  if (layerTypes && window === null && layerTypes.includes('sliding_attention')) {
    fail('sliding_window', 'layer_types names sliding layers but no window is given')
  }

  if (problems.length || hidden === undefined || layers === undefined || heads === undefined || vocab === undefined ||
    intermediate === undefined || denseIntermediate === undefined || headDim === undefined) {
    return { ok: false, problems: problems.length ? problems : [{ key: 'config', message: 'incomplete' }] }
  }
  const notes: string[] = []
  if (modelType === 'deepseek_v3') {
    notes.push('the multi-token-prediction layer (num_nextn_predict_layers) is not loaded by transformers and not counted')
  }
  if (isMoe && denseLayers > 0) notes.push(`layers 0-${denseLayers - 1} have a dense MLP ${denseIntermediate} wide`)
  const version = typeof config.transformers_version === 'string' ? config.transformers_version.slice(0, 40) : null
  return {
    ok: true,
    model_type: modelType,
    transformers_version: version,
    notes,
    arch: completeArch({
      hidden,
      layers,
      heads,
      kv_heads: mla ? heads : kvHeads ?? heads,
      head_dim: headDim,
      intermediate,
      vocab,
      tie_embeddings: tie,
      experts,
      experts_per_token: experts > 1 ? perToken : 1,
      qkv_bias: modelType === 'qwen2',
      norms_per_layer: family.norms,
      max_context: maxContext ?? null,
      sliding_window: window,
      ...(layerTypes ? { layer_types: layerTypes } : {}),
      fused_qkv: modelType === 'phi3',
      fused_gate_up: modelType === 'phi3',
      mla,
      shared_experts: experts > 1 ? shared : 0,
      dense_layers: experts > 1 ? denseLayers : 0,
      dense_intermediate: experts > 1 && denseLayers > 0 ? denseIntermediate : intermediate,
    }),
  }
}
