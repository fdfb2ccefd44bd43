// The model catalogue: decoder-only architectures from their public config.json, each with where the facts come from.

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
  /** Sliding-window attention span in tokens, or null. */
  sliding_window: number | null
  /** How many layers use the sliding window (Mistral: all; Gemma 2: every other one). */
  sliding_window_layers: number
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
  /** transformers model_type: selects PEFT's default LoRA target modules. */
  model_type: string
  arch: Arch
  notes: string
  sources: string[]
  published?: { total?: PublishedCount; non_embedding?: PublishedCount; active?: PublishedCount }
  /** True for models kept to check the formulas against published figures. */
  check_model?: boolean
}

const LITGPT = 'Lightning-AI/litgpt litgpt/config.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa'

const dense = (a: Partial<Arch> & Pick<Arch, 'hidden' | 'layers' | 'heads' | 'intermediate' | 'vocab'>): Arch => ({
  kv_heads: a.heads,
  head_dim: a.hidden / a.heads,
  tie_embeddings: false,
  experts: 1,
  experts_per_token: 1,
  qkv_bias: false,
  norms_per_layer: 2,
  max_context: null,
  sliding_window: null,
  sliding_window_layers: 0,
  fused_qkv: false,
  fused_gate_up: false,
  ...a,
})

export const MODEL_PRESETS: readonly ModelPreset[] = Object.freeze([
  {
    id: 'llama-2-7b',
    name: 'Llama 2 7B',
    hf_repo: 'meta-llama/Llama-2-7b-hf',
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
    model_type: 'llama',
    arch: dense({ hidden: 5120, layers: 40, heads: 40, intermediate: 13824, vocab: 32000, max_context: 4096 }),
    notes: 'MHA (40 KV heads).',
    sources: [`${LITGPT} L711-724`, 'llava-v1.5-13b config.json (same Llama 2 13B backbone)'],
  },
  {
    id: 'llama-2-70b',
    name: 'Llama 2 70B',
    hf_repo: 'meta-llama/Llama-2-70b-hf',
    model_type: 'llama',
    arch: dense({ hidden: 8192, layers: 80, heads: 64, kv_heads: 8, intermediate: 28672, vocab: 32000, max_context: 4096 }),
    notes: 'GQA with 8 KV heads.',
    sources: [`${LITGPT} L726-742`],
  },
  {
    id: 'llama-3.1-8b',
    name: 'Llama 3.1 8B',
    hf_repo: 'meta-llama/Llama-3.1-8B',
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
    model_type: 'llama',
    arch: dense({ hidden: 8192, layers: 80, heads: 64, kv_heads: 8, intermediate: 28672, vocab: 128256, max_context: 131072 }),
    notes: 'rope_theta 500000 with llama3 rope scaling ×8 (original context 8192).',
    sources: [`${LITGPT} L813-831`, 'meta-llama/llama-models models/sku_list.py'],
  },
  {
    id: 'mistral-7b',
    name: 'Mistral 7B v0.1',
    hf_repo: 'mistralai/Mistral-7B-v0.1',
    model_type: 'mistral',
    arch: dense({
      hidden: 4096, layers: 32, heads: 32, kv_heads: 8, intermediate: 14336, vocab: 32000, max_context: 32768,
      sliding_window: 4096, sliding_window_layers: 32,
    }),
    notes: 'sliding_window 4096 on every layer (rolling-buffer KV caches cap at 4096 tokens); rope_theta 10000.',
    sources: ['MistralConfig for mistralai/Mistral-7B-v0.1 (verbatim dump, transformers 4.37.2)', `${LITGPT} L1991-2006`],
  },
  {
    id: 'mixtral-8x7b',
    name: 'Mixtral 8x7B v0.1',
    hf_repo: 'mistralai/Mixtral-8x7B-v0.1',
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
    model_type: 'gemma2',
    arch: dense({
      hidden: 3584, layers: 42, heads: 16, kv_heads: 8, head_dim: 256, intermediate: 14336, vocab: 256000,
      tie_embeddings: true, norms_per_layer: 4, max_context: 8192, sliding_window: 4096, sliding_window_layers: 21,
    }),
    notes:
      'head_dim 256 (not 3584/16 = 224); tied embeddings; 4 RMSNorms per layer; local (4096-token window) and ' +
      'global attention layers alternate; logit softcaps 50/30.',
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
    model_type: 'phi3',
    arch: dense({
      hidden: 3072, layers: 32, heads: 32, intermediate: 8192, vocab: 32064, max_context: 4096,
      fused_qkv: true, fused_gate_up: true,
    }),
    notes:
      'Fused qkv_proj and gate_up_proj (same parameter count as split projections). The config declares a sliding ' +
      'window (litgpt: 2048) that was not re-checked against the HF config, so it is not applied.',
    sources: [`${LITGPT} L1816-1831`],
  },
  {
    id: 'qwen2.5-3b',
    name: 'Qwen2.5 3B',
    hf_repo: 'Qwen/Qwen2.5-3B-Instruct',
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
  return problems
}
