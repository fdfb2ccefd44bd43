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

export function countParams(a: Arch): ParamCount {
  const { hidden: h, layers: L, vocab: V } = a
  const qDim = a.heads * a.head_dim
  const kvDim = a.kv_heads * a.head_dim
  const attentionPerLayer = h * qDim + 2 * h * kvDim + qDim * h
  const biasPerLayer = a.qkv_bias ? qDim + 2 * kvDim : 0
  const expertMlp = 3 * h * a.intermediate
  const routerPerLayer = a.experts > 1 ? h * a.experts : 0

  const embedding = V * h
  const lm_head = a.tie_embeddings ? 0 : V * h
  const attention = L * attentionPerLayer
  const attention_bias = L * biasPerLayer
  const mlp = L * a.experts * expertMlp
  const router = L * routerPerLayer
  const norms = L * a.norms_per_layer * h + h
  const total = embedding + lm_head + attention + attention_bias + mlp + router + norms
  const active = total - L * (a.experts - a.experts_per_token) * expertMlp
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
