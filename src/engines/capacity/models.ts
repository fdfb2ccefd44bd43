// The model catalogue: decoder-only architectures from their public config.json, each with where the facts come from.

export type LayerType = 'full_attention' | 'sliding_attention'

/** Multi-head latent attention (DeepSeek-V2/V3): K and V are rebuilt from one compressed vector per token. */
export interface Mla {
  /** Rank of the query compression, or null when q_proj is one full matrix (DeepSeek-V2-Lite). */
  q_lora_rank: number | null
  kv_lora_rank: number
  qk_nope_head_dim: number
  qk_rope_head_dim: number
  v_head_dim: number
}

/** The architecture facts every capacity figure is computed from. */
export interface Arch {
  hidden: number
  layers: number
  /** Attention (query) heads. */
  heads: number
  /** Key/value heads: equal to heads for MHA, fewer for GQA/MQA. */
  kv_heads: number
  /** Read from config.head_dim when present (Gemma 2: 256 although 3584 / 16 = 224). */
  head_dim: number
  /** MLP width, per expert for MoE. */
  intermediate: number
  vocab: number
  /** lm_head shares the embedding matrix. */
  tie_embeddings: boolean
  /** 1 for a dense model. */
  experts: number
  /** Experts routed per token (1 for a dense model). */
  experts_per_token: number
  /** Bias on q, k and v projections (Qwen2/2.5). */
  qkv_bias: boolean
  /** RMSNorm weight vectors per layer: 2 for Llama/Mistral/Qwen/Phi-3, 4 for Gemma 2. */
  norms_per_layer: number
  /** max_position_embeddings, or null when not declared. */
  max_context: number | null
  /** Sliding-window attention span in tokens (the config's sliding_window), or null. */
  sliding_window: number | null
  /** How many layers use the sliding window (Mistral, Phi-3: all; Gemma 2: every other one); counts layer_types. */
  sliding_window_layers: number
  /** Per layer, as transformers' config.layer_types: which layers attend through the window. */
  layer_types: LayerType[]
  /** DeepSeek-style multi-head latent attention (compressed KV), or null for ordinary attention. */
  mla: Mla | null
  /** Always-on experts per MoE layer, each `intermediate` wide (DeepSeek n_shared_experts). */
  shared_experts: number
  /** Leading layers with a dense MLP instead of experts (DeepSeek first_k_dense_replace). */
  dense_layers: number
  /** MLP width of those dense layers (equals intermediate when there are none). */
  dense_intermediate: number
  /** q, k and v are one Linear (Phi-3 qkv_proj): same parameters, fewer LoRA d_in terms. */
  fused_qkv: boolean
  /** gate and up are one Linear (Phi-3 gate_up_proj). */
  fused_gate_up: boolean
}

export interface PublishedCount {
  /** Parameters as published. */
  value: number
  /**
   * 0 when the figure is published to the unit; otherwise the step it is published to (0.01e9 for "7.61B").
   * Published short figures are not always rounded to nearest (Qwen2.5-7B: 7,615,616,512 is printed 7.61B),
   * so a computed count agrees when it is within one step.
   */
  rounding: number
  source: string
}

export interface ModelPreset {
  id: string
  name: string
  /** The Hugging Face repository whose config.json the facts mirror. */
  hf_repo: string
  /** The config file the facts were read from, and the transformers version that wrote it when known. */
  config_source: { file: string; transformers_version: string | null; via: string }
  /** transformers model_type: selects PEFT's default LoRA target modules and the library's module layout. */
  model_type: string
  arch: Arch
  notes: string
  sources: string[]
  published?: { total?: PublishedCount; non_embedding?: PublishedCount; active?: PublishedCount }
  /** True for models kept to check the formulas against published figures. */
  check_model?: boolean
}

const LITGPT = 'Lightning-AI/litgpt litgpt/config.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa'

/** Transformers' default layer_types: the window, when there is one, on every layer (Mistral, Phi-3). */
export const uniformLayerTypes = (layers: number, sliding: boolean): LayerType[] =>
  new Array<LayerType>(layers).fill(sliding ? 'sliding_attention' : 'full_attention')

/** Gemma 2's default layer_types: even layers local (windowed), odd layers global. */
export const alternatingLayerTypes = (layers: number): LayerType[] =>
  Array.from({ length: layers }, (_, i) => ((i + 1) % 2 ? 'sliding_attention' : 'full_attention'))

type ArchCore = Pick<Arch, 'hidden' | 'layers' | 'heads' | 'intermediate' | 'vocab'>

/** Fills the facts a config leaves at their defaults; layer_types defaults to the window on every layer. */
export const completeArch = (a: Partial<Arch> & ArchCore): Arch => {
  const sliding = a.sliding_window ?? null
  const layerTypes = a.layer_types ?? uniformLayerTypes(a.layers, sliding !== null)
  return {
    kv_heads: a.heads,
    head_dim: a.hidden / a.heads,
    tie_embeddings: false,
    experts: 1,
    experts_per_token: 1,
    qkv_bias: false,
    norms_per_layer: 2,
    max_context: null,
    fused_qkv: false,
    fused_gate_up: false,
    mla: null,
    shared_experts: 0,
    dense_layers: 0,
    dense_intermediate: a.intermediate,
    ...a,
    sliding_window: sliding,
    layer_types: layerTypes,
    sliding_window_layers: sliding === null ? 0 : layerTypes.filter((t) => t === 'sliding_attention').length,
  }
}

const dense = completeArch

export const MODEL_PRESETS: readonly ModelPreset[] = Object.freeze([
  {
    id: 'llama-2-7b',
    name: 'Llama 2 7B',
    hf_repo: 'meta-llama/Llama-2-7b-hf',
    config_source: { file: 'meta-llama/Llama-2-7b-hf/config.json', transformers_version: '4.39.0', via: "verbatim dumps in the public-code index (a transformers 4.39 log loading snapshot 8a0442e8)" },
    model_type: 'llama',
    arch: dense({ hidden: 4096, layers: 32, heads: 32, intermediate: 11008, vocab: 32000, max_context: 4096 }),
    notes: 'MHA (32 KV heads); rope_theta 10000; rms_norm_eps 1e-5.',
    sources: [
      'meta-llama/Llama-2-7b-hf config.json (verbatim dumps, transformers 4.39 snapshot 8a0442e8)',
      `${LITGPT} L697-709`,
    ],
  },
  {
    id: 'llama-2-13b',
    name: 'Llama 2 13B',
    hf_repo: 'meta-llama/Llama-2-13b-hf',
    config_source: { file: 'meta-llama/Llama-2-13b-hf/config.json', transformers_version: null, via: "litgpt's mirror of the config (L711-724) and the llava-v1.5-13b config (same backbone)" },
    model_type: 'llama',
    arch: dense({ hidden: 5120, layers: 40, heads: 40, intermediate: 13824, vocab: 32000, max_context: 4096 }),
    notes: 'MHA (40 KV heads).',
    sources: [`${LITGPT} L711-724`, 'llava-v1.5-13b config.json (same Llama 2 13B backbone)'],
  },
  {
    id: 'llama-2-70b',
    name: 'Llama 2 70B',
    hf_repo: 'meta-llama/Llama-2-70b-hf',
    config_source: { file: 'meta-llama/Llama-2-70b-hf/config.json', transformers_version: null, via: "litgpt's mirror of the config (L726-742)" },
    model_type: 'llama',
    arch: dense({ hidden: 8192, layers: 80, heads: 64, kv_heads: 8, intermediate: 28672, vocab: 32000, max_context: 4096 }),
    notes: 'GQA with 8 KV heads.',
    sources: [`${LITGPT} L726-742`],
  },
  {
    id: 'llama-3.1-8b',
    name: 'Llama 3.1 8B',
    hf_repo: 'meta-llama/Llama-3.1-8B',
    config_source: { file: 'meta-llama/Llama-3.1-8B/config.json', transformers_version: null, via: "litgpt's mirror of the config (L775-793)" },
    model_type: 'llama',
    arch: dense({ hidden: 4096, layers: 32, heads: 32, kv_heads: 8, intermediate: 14336, vocab: 128256, max_context: 131072 }),
    notes: 'rope_theta 500000 with llama3 rope scaling ×8 (original context 8192).',
    sources: [
      `${LITGPT} L775-793`,
      'meta-llama/llama-models models/sku_list.py (dim 4096, n_kv_heads 8, ffn_dim_multiplier 1.3, multiple_of 1024 ⇒ 14336)',
    ],
  },
  {
    id: 'llama-3.1-70b',
    name: 'Llama 3.1 70B',
    hf_repo: 'meta-llama/Llama-3.1-70B',
    config_source: { file: 'meta-llama/Llama-3.1-70B/config.json', transformers_version: null, via: "litgpt's mirror of the config (L813-831)" },
    model_type: 'llama',
    arch: dense({ hidden: 8192, layers: 80, heads: 64, kv_heads: 8, intermediate: 28672, vocab: 128256, max_context: 131072 }),
    notes: 'rope_theta 500000 with llama3 rope scaling ×8 (original context 8192).',
    sources: [`${LITGPT} L813-831`, 'meta-llama/llama-models models/sku_list.py'],
  },
  {
    id: 'mistral-7b',
    name: 'Mistral 7B v0.1',
    hf_repo: 'mistralai/Mistral-7B-v0.1',
    config_source: { file: 'mistralai/Mistral-7B-v0.1/config.json', transformers_version: '4.37.2', via: "a verbatim MistralConfig dump" },
    model_type: 'mistral',
    arch: dense({
      hidden: 4096, layers: 32, heads: 32, kv_heads: 8, intermediate: 14336, vocab: 32000, max_context: 32768,
      sliding_window: 4096,
    }),
    notes: 'sliding_window 4096 on every layer (transformers keeps the last 4095 tokens per layer); rope_theta 10000.',
    sources: ['MistralConfig for mistralai/Mistral-7B-v0.1 (verbatim dump, transformers 4.37.2)', `${LITGPT} L1991-2006`],
  },
  {
    id: 'mixtral-8x7b',
    name: 'Mixtral 8x7B v0.1',
    hf_repo: 'mistralai/Mixtral-8x7B-v0.1',
    config_source: { file: 'mistralai/Mixtral-8x7B-v0.1/config.json', transformers_version: '4.36.0.dev0', via: "a Mixtral-8x7B config fixture" },
    model_type: 'mixtral',
    arch: dense({
      hidden: 4096, layers: 32, heads: 32, kv_heads: 8, intermediate: 14336, vocab: 32000, max_context: 32768,
      experts: 8, experts_per_token: 2,
    }),
    notes: 'Sparse MoE: 8 SwiGLU experts per layer, top-2 routing; KV cache as Mistral 7B; rope_theta 1e6.',
    sources: ['Mixtral-8x7B config fixture (transformers 4.36.0.dev0)', `${LITGPT} L2008-2026`],
    published: {
      total: { value: 47e9, rounding: 1e9, source: 'Mixtral of Experts, arXiv 2401.04088, abstract ("47B parameters")' },
      active: { value: 13e9, rounding: 1e9, source: 'Mixtral of Experts, arXiv 2401.04088, abstract ("13B active")' },
    },
  },
  {
    id: 'qwen2.5-7b',
    name: 'Qwen2.5 7B',
    hf_repo: 'Qwen/Qwen2.5-7B',
    config_source: { file: 'Qwen/Qwen2.5-7B/config.json', transformers_version: null, via: "litgpt's mirror (L2325-2344) and a verbatim Qwen2.5-7B-Instruct dump (transformers 4.43.3)" },
    model_type: 'qwen2',
    arch: dense({
      hidden: 3584, layers: 28, heads: 28, kv_heads: 4, intermediate: 18944, vocab: 152064, qkv_bias: true,
      max_context: 131072,
    }),
    notes: 'Bias on q/k/v; rope_theta 1e6; the -Instruct config declares max_position_embeddings 32768.',
    sources: [`${LITGPT} L2325-2344`, 'Qwen/Qwen2.5-7B-Instruct config.json (verbatim dump, transformers 4.43.3)'],
    published: {
      total: { value: 7.61e9, rounding: 0.01e9, source: 'Qwen2.5-7B model card: 7.61B parameters' },
      non_embedding: { value: 6.53e9, rounding: 0.01e9, source: 'Qwen2.5-7B model card: 6.53B non-embedding' },
    },
  },
  {
    id: 'gemma-2-9b',
    name: 'Gemma 2 9B',
    hf_repo: 'google/gemma-2-9b',
    config_source: { file: 'google/gemma-2-9b/config.json', transformers_version: '4.45.2', via: "a verbatim Gemma2Config dump" },
    model_type: 'gemma2',
    arch: dense({
      hidden: 3584, layers: 42, heads: 16, kv_heads: 8, head_dim: 256, intermediate: 14336, vocab: 256000,
      tie_embeddings: true, norms_per_layer: 4, max_context: 8192, sliding_window: 4096,
      layer_types: alternatingLayerTypes(42),
    }),
    notes:
      'head_dim 256 (not 3584/16 = 224); tied embeddings; 4 RMSNorms per layer; local (4096-token window, even ' +
      'layers) and global (odd layers) attention alternate as in Gemma2Config.layer_types; logit softcaps 50/30.',
    sources: ['Gemma2Config for google/gemma-2-9b (verbatim dump, transformers 4.45.2)', `${LITGPT} L1137-1160`],
    published: {
      non_embedding: {
        value: 8_324_201_984,
        rounding: 0,
        source: 'Gemma 2 technical report, parameter table: 8,324,201,984 non-embedding parameters for 9B',
      },
    },
  },
  {
    id: 'phi-3-mini',
    name: 'Phi-3 mini 4k',
    hf_repo: 'microsoft/Phi-3-mini-4k-instruct',
    config_source: { file: 'microsoft/Phi-3-mini-4k-instruct/config.json', transformers_version: '4.40.2', via: "verbatim config.json dumps in the public-code index" },
    model_type: 'phi3',
    arch: dense({
      hidden: 3072, layers: 32, heads: 32, intermediate: 8192, vocab: 32064, max_context: 4096,
      fused_qkv: true, fused_gate_up: true, sliding_window: 2047,
    }),
    notes:
      'Fused qkv_proj and gate_up_proj (same parameter count as split projections). sliding_window 2047 on every ' +
      'layer: transformers keeps the last 2046 tokens per layer (litgpt rounds it to 2048).',
    sources: ['microsoft/Phi-3-mini-4k-instruct config.json (verbatim dumps, transformers 4.40.2)', `${LITGPT} L1816-1831`],
  },
  {
    id: 'deepseek-v2-lite',
    name: 'DeepSeek-V2-Lite',
    hf_repo: 'deepseek-ai/DeepSeek-V2-Lite',
    config_source: {
      file: 'deepseek-ai/DeepSeek-V2-Lite/config.json',
      transformers_version: '5.7.0',
      via: 'a verbatim DeepseekV2Config dump in the public-code index',
    },
    model_type: 'deepseek_v2',
    arch: dense({
      hidden: 2048, layers: 27, heads: 16, intermediate: 1408, vocab: 102400, max_context: 163840,
      head_dim: 192, experts: 64, experts_per_token: 6, shared_experts: 2, dense_layers: 1, dense_intermediate: 10944,
      mla: { q_lora_rank: null, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 },
    }),
    notes:
      'Multi-head latent attention: one 512 + 64 value latent per token and layer (kv_lora_rank + qk_rope_head_dim); ' +
      'layer 0 has a dense 10944-wide MLP, layers 1-26 have 64 routed experts (top-6) and 2 shared experts, each 1408 wide.',
    sources: ['DeepseekV2Config for deepseek-ai/DeepSeek-V2-Lite (verbatim dump, transformers 5.7.0)'],
    published: {
      total: { value: 15.7e9, rounding: 0.1e9, source: 'deepseek-ai/DeepSeek-V2-Lite model card: 15.7B total parameters' },
    },
  },
  {
    id: 'qwen2.5-3b',
    name: 'Qwen2.5 3B',
    hf_repo: 'Qwen/Qwen2.5-3B-Instruct',
    config_source: { file: 'Qwen/Qwen2.5-3B-Instruct/config.json', transformers_version: null, via: "litgpt's mirror of the config (L2305-2324)" },
    model_type: 'qwen2',
    check_model: true,
    arch: dense({
      hidden: 2048, layers: 36, heads: 16, kv_heads: 2, intermediate: 11008, vocab: 151936, tie_embeddings: true,
      qkv_bias: true, max_context: 32768,
    }),
    notes: 'Check model: PEFT prints its exact parameter count.',
    sources: [`${LITGPT} L2305-2324`],
    published: {
      total: {
        value: 3_085_938_688,
        rounding: 0,
        source:
          'huggingface/peft README.md L57 @ 5d602fdb: "trainable params: 3,686,400 || all params: 3,089,625,088" ' +
          '(r=16, q_proj+v_proj); 3,089,625,088 − 3,686,400',
      },
    },
  },
  {
    id: 'llama-3.2-1b',
    name: 'Llama 3.2 1B',
    hf_repo: 'meta-llama/Llama-3.2-1B',
    config_source: { file: 'meta-llama/Llama-3.2-1B/config.json', transformers_version: null, via: "litgpt's mirror of the config (L854-871)" },
    model_type: 'llama',
    check_model: true,
    arch: dense({
      hidden: 2048, layers: 16, heads: 32, kv_heads: 8, head_dim: 64, intermediate: 8192, vocab: 128256,
      tie_embeddings: true, max_context: 131072,
    }),
    notes: 'Check model: PEFT prints its exact parameter count. rope scaling ×32.',
    sources: [`${LITGPT} L854-871`],
    published: {
      total: {
        value: 1_235_814_400,
        rounding: 0,
        source:
          'huggingface/peft docs/source/quicktour.md L94 @ 5d602fdb: "trainable params: 524,288 || all params: ' +
          '1,236,338,688" (r=8, q_proj); 1,236,338,688 − 524,288',
      },
    },
  },
])

export const MODEL_IDS = MODEL_PRESETS.map((m) => m.id)

const normalise = (s: string) => s.trim().toLowerCase().replace(/[\s_]+/g, '-')

const index = new Map<string, ModelPreset>()
for (const m of MODEL_PRESETS) {
  for (const key of [m.id, m.name, m.hf_repo, m.hf_repo.split('/')[1]!]) index.set(normalise(key), m)
}

/** Finds a preset by id, display name or Hugging Face repository (case-insensitive). */
export function findModel(name: string): ModelPreset | undefined {
  return index.get(normalise(name))
}

/** Problems that make an architecture unusable, in words (empty when it is consistent). */
export function archProblems(a: Arch): string[] {
  const problems: string[] = []
  if (a.kv_heads > a.heads) problems.push(`kv_heads (${a.kv_heads}) exceeds heads (${a.heads})`)
  if (a.heads % a.kv_heads !== 0) problems.push(`heads (${a.heads}) is not a multiple of kv_heads (${a.kv_heads})`)
  if (a.experts_per_token > a.experts) {
    problems.push(`experts_per_token (${a.experts_per_token}) exceeds experts (${a.experts})`)
  }
  if (a.sliding_window_layers > a.layers) {
    problems.push(`sliding_window_layers (${a.sliding_window_layers}) exceeds layers (${a.layers})`)
  }
  if (a.sliding_window_layers > 0 && a.sliding_window === null) {
    problems.push('sliding_window_layers is set but sliding_window is not')
  }
  if (a.layer_types.length !== a.layers) {
    problems.push(`layer_types has ${a.layer_types.length} entries for ${a.layers} layers`)
  }
  if (a.dense_layers > a.layers) problems.push(`dense_layers (${a.dense_layers}) exceeds layers (${a.layers})`)
  if (a.experts === 1 && (a.shared_experts > 0 || a.dense_layers > 0)) {
    problems.push('shared_experts and dense_layers describe MoE models: set experts above 1')
  }
  return problems
}
