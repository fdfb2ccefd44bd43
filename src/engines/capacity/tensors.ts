// Every weight tensor of an architecture, with the role llama.cpp's quantiser gives it: the shapes weight formats price.
import type { Arch } from './models.js'
import { moeLayers } from './params.js'

/** llama.cpp tensor categories (src/llama-quant.cpp), plus 1-D vectors. */
export type TensorRole =
  | 'token_embd' | 'output'
  | 'attn_q' | 'attn_k' | 'attn_v' | 'attn_qkv' | 'attn_output'
  | 'attn_q_a' | 'attn_q_b' | 'attn_kv_a_mqa' | 'attn_kv_b'
  | 'ffn_gate' | 'ffn_up' | 'ffn_down' | 'ffn_gate_inp'
  | 'vector'

export interface WeightTensor {
  role: TensorRole
  /** Layer index, or null for the embedding, the output head and the final norm. */
  layer: number | null
  /** Row length (llama.cpp ne[0]): the input features of a matrix, the length of a vector. */
  d_in: number
  /** Rows: output features (1 for a vector). */
  d_out: number
  /** Stacked copies (experts) sharing this role in this layer. */
  copies: number
  /** Part of a routed MoE expert (priced per expert by GPTQ/AWQ, stacked in GGUF). */
  expert: boolean
}

export const tensorParams = (t: WeightTensor): number => t.d_in * t.d_out * t.copies

/** The tensors of the model, in order; their parameters add up to countParams(arch).total. */
export function weightTensors(a: Arch): WeightTensor[] {
  const h = a.hidden
  const out: WeightTensor[] = []
  const m = (role: TensorRole, layer: number | null, d_in: number, d_out: number, copies = 1, expert = false) =>
    out.push({ role, layer, d_in, d_out, copies, expert })
  const v = (layer: number | null, length: number) => m('vector', layer, length, 1)
  m('token_embd', null, h, a.vocab)
  const firstMoe = a.layers - moeLayers(a)
  for (let l = 0; l < a.layers; l++) {
    for (let n = 0; n < a.norms_per_layer; n++) v(l, h)
    if (a.mla) {
      const x = a.mla
      const qk = x.qk_nope_head_dim + x.qk_rope_head_dim
      if (x.q_lora_rank === null) m('attn_q', l, h, a.heads * qk)
      else {
        m('attn_q_a', l, h, x.q_lora_rank)
        v(l, x.q_lora_rank)
        m('attn_q_b', l, x.q_lora_rank, a.heads * qk)
      }
      m('attn_kv_a_mqa', l, h, x.kv_lora_rank + x.qk_rope_head_dim)
      v(l, x.kv_lora_rank)
      m('attn_kv_b', l, x.kv_lora_rank, a.heads * (x.qk_nope_head_dim + x.v_head_dim))
      m('attn_output', l, a.heads * x.v_head_dim, h)
    } else {
      const q = a.heads * a.head_dim
      const kv = a.kv_heads * a.head_dim
      if (a.fused_qkv) m('attn_qkv', l, h, q + 2 * kv)
      else {
        m('attn_q', l, h, q)
        m('attn_k', l, h, kv)
        m('attn_v', l, h, kv)
      }
      if (a.qkv_bias) v(l, q + 2 * kv)
      m('attn_output', l, q, h)
    }
    const isMoe = l >= firstMoe && a.experts > 1
    const width = isMoe ? a.intermediate : a.dense_intermediate
    const mlp = (copies: number, expert: boolean) => {
      if (a.fused_gate_up) m('ffn_up', l, h, 2 * width, copies, expert)
      else {
        m('ffn_gate', l, h, width, copies, expert)
        m('ffn_up', l, h, width, copies, expert)
      }
      m('ffn_down', l, width, h, copies, expert)
    }
    if (isMoe) {
      m('ffn_gate_inp', l, h, a.experts)
      mlp(a.experts, true)
      if (a.shared_experts > 0) mlp(a.shared_experts, false)
    } else mlp(1, false)
  }
  v(null, h)
  if (!a.tie_embeddings) m('output', null, h, a.vocab)
  return out
}
