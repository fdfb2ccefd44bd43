// Parameter counts of a decoder-only transformer, computed from its architecture (dense, GQA, MoE, tied, qkv bias).
import type { Arch } from './models.js'

export interface ParamCount {
  /** Input embedding V·h. */
  embedding: number
  /** Output projection V·h, or 0 when tied to the embedding. */
  lm_head: number
  /** q, k, v, o projection weights over all layers. */
  attention: number
  /** q, k, v biases over all layers (Qwen2/2.5). */
  attention_bias: number
  /** Gate, up and down projections of every expert over all layers. */
  mlp: number
  /** MoE router weights over all layers. */
  router: number
  /** Per-layer norms plus the final norm. */
  norms: number
  total: number
  /** Parameters used per token: total minus the experts not routed to. */
  active: number
  /** total − embedding − untied lm_head (the Qwen and Gemma convention). */
  non_embedding: number
  /** Weights of Linear layers inside the blocks (attention, MLP, router): what weight quantisation converts. */
  linear: number
  /** Everything else (embedding, lm_head, norms, biases): kept at 16 bits by weight quantisation. */
  non_linear: number
}

/** Attention weights of one layer, and the norm vectors inside it (MLA's q_a and kv_a layernorms). */
export function attentionPerLayer(a: Arch): { weights: number; norms: number } {
  const h = a.hidden
  if (a.mla) {
    const m = a.mla
    const qkHead = m.qk_nope_head_dim + m.qk_rope_head_dim
    const q = m.q_lora_rank === null ? h * a.heads * qkHead : h * m.q_lora_rank + m.q_lora_rank * a.heads * qkHead
    const kvA = h * (m.kv_lora_rank + m.qk_rope_head_dim)
    const kvB = m.kv_lora_rank * a.heads * (m.qk_nope_head_dim + m.v_head_dim)
    const o = a.heads * m.v_head_dim * h
    return { weights: q + kvA + kvB + o, norms: m.kv_lora_rank + (m.q_lora_rank ?? 0) }
  }
  const qDim = a.heads * a.head_dim
  const kvDim = a.kv_heads * a.head_dim
  return { weights: h * qDim + 2 * h * kvDim + qDim * h, norms: 0 }
}

/** Layers whose MLP is a mixture of experts (all of them for Mixtral; DeepSeek keeps its first layers dense). */
export const moeLayers = (a: Arch): number => (a.experts > 1 ? a.layers - a.dense_layers : 0)

export function countParams(a: Arch): ParamCount {
  const { hidden: h, layers: L, vocab: V } = a
  const attn = attentionPerLayer(a)
  const biasPerLayer = a.qkv_bias && !a.mla ? (a.heads + 2 * a.kv_heads) * a.head_dim : 0
  const expertMlp = 3 * h * a.intermediate
  const moe = moeLayers(a)
  const denseMlpLayers = L - moe

  const embedding = V * h
  const lm_head = a.tie_embeddings ? 0 : V * h
  const attention = L * attn.weights
  const attention_bias = L * biasPerLayer
  const mlp = denseMlpLayers * 3 * h * a.dense_intermediate + moe * (a.experts + a.shared_experts) * expertMlp
  const router = moe * h * a.experts
  const norms = L * (a.norms_per_layer * h + attn.norms) + h
  const total = embedding + lm_head + attention + attention_bias + mlp + router + norms
  const active = total - moe * (a.experts - a.experts_per_token) * expertMlp
  const linear = attention + mlp + router
  return {
    embedding,
    lm_head,
    attention,
    attention_bias,
    mlp,
    router,
    norms,
    total,
    active,
    non_embedding: total - embedding - lm_head,
    linear,
    non_linear: total - linear,
  }
}
