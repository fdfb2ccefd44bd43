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

/** Tensors repeated over a run of layers [from, to) with the same shapes (dense layers, then MoE layers). */
export interface LayerRun {
  from: number
  to: number
  /** One layer's tensors, `layer` left null. */
  tensors: WeightTensor[]
}

export interface TensorLayout {
  /** Embedding, output head and final norm. */
  global: WeightTensor[]
  runs: LayerRun[]
}

/** One layer's tensors of a given kind (dense or MoE), layer index left null. */
function layerTensors(a: Arch, isMoe: boolean): WeightTensor[] {
  const h = a.hidden
  const out: WeightTensor[] = []
  const m = (role: TensorRole, d_in: number, d_out: number, copies = 1, expert = false) =>
    out.push({ role, layer: null, d_in, d_out, copies, expert })
  const v = (length: number) => m('vector', length, 1)
  for (let n = 0; n < a.norms_per_layer; n++) v(h)
  if (a.mla) {
    const x = a.mla
    const qk = x.qk_nope_head_dim + x.qk_rope_head_dim
    if (x.q_lora_rank === null) m('attn_q', h, a.heads * qk)
    else {
      m('attn_q_a', h, x.q_lora_rank)
      v(x.q_lora_rank)
      m('attn_q_b', x.q_lora_rank, a.heads * qk)
    }
    m('attn_kv_a_mqa', h, x.kv_lora_rank + x.qk_rope_head_dim)
    v(x.kv_lora_rank)
    m('attn_kv_b', x.kv_lora_rank, a.heads * (x.qk_nope_head_dim + x.v_head_dim))
    m('attn_output', a.heads * x.v_head_dim, h)
  } else {
    const q = a.heads * a.head_dim
    const kv = a.kv_heads * a.head_dim
    if (a.fused_qkv) m('attn_qkv', h, q + 2 * kv)
    else {
      m('attn_q', h, q)
      m('attn_k', h, kv)
      m('attn_v', h, kv)
    }
    if (a.qkv_bias) v(q + 2 * kv)
    m('attn_output', q, h)
  }
  const width = isMoe ? a.intermediate : a.dense_intermediate
  const mlp = (copies: number, expert: boolean) => {
    if (a.fused_gate_up) m('ffn_up', h, 2 * width, copies, expert)
    else {
      m('ffn_gate', h, width, copies, expert)
      m('ffn_up', h, width, copies, expert)
    }
    m('ffn_down', width, h, copies, expert)
  }
  if (isMoe) {
    m('ffn_gate_inp', h, a.experts)
    mlp(a.experts, true)
    if (a.shared_experts > 0) mlp(a.shared_experts, false)
  } else mlp(1, false)
  return out
}

/** The tensors as runs of identical layers: work proportional to the kinds of layer, not to their number. */
export function tensorLayout(a: Arch): TensorLayout {
  const h = a.hidden
  const firstMoe = a.layers - moeLayers(a)
  const runs: LayerRun[] = []
  if (firstMoe > 0) runs.push({ from: 0, to: firstMoe, tensors: layerTensors(a, false) })
  if (firstMoe < a.layers) runs.push({ from: firstMoe, to: a.layers, tensors: layerTensors(a, true) })
  const global: WeightTensor[] = [{ role: 'token_embd', layer: null, d_in: h, d_out: a.vocab, copies: 1, expert: false }]
  global.push({ role: 'vector', layer: null, d_in: h, d_out: 1, copies: 1, expert: false })
  if (!a.tie_embeddings) global.push({ role: 'output', layer: null, d_in: h, d_out: a.vocab, copies: 1, expert: false })
  return { global, runs }
}

/** Every tensor of the model, one per layer; their parameters add up to countParams(arch).total. */
export function weightTensors(a: Arch): WeightTensor[] {
  const t = tensorLayout(a)
  return [
    ...t.global,
    ...t.runs.flatMap((r) =>
      Array.from({ length: r.to - r.from }, (_, k) => r.tensors.map((x) => ({ ...x, layer: r.from + k }))).flat(),
    ),
  ]
}
