// Activation memory: the live tensors of one forward pass (inference) and the tensors autograd saves (training).
import type { Arch } from './models.js'
import { moeLayers } from './params.js'

/** Bytes of one activation value (bf16/fp16 compute). */
const ACT = 2
const FP32 = 4

export interface PerTokenPeak {
  bytes: number
  stage: 'attention' | 'mlp'
  formula: string
}

/**
 * Inference, no autograd: the most bytes per token alive at once inside one decoder layer, tensor-parallel split
 * applied. Attention stage: residual + normed input + q, k, v + rotated q and k + attention output (SDPA flash or
 * memory-efficient kernels, no score matrix). MLP stage: residual + normed input + gate, act(gate)·up's two inputs
 * and their product (3·I; fused gate_up 4·I); an MoE token goes to k experts, each with its gathered input and output.
 */
export function inferencePeakPerToken(a: Arch, tp = 1): PerTokenPeak {
  const h = a.hidden
  const heads = a.heads / tp
  let attn: number
  let attnFormula: string
  if (a.mla) {
    const m = a.mla
    const qk = m.qk_nope_head_dim + m.qk_rope_head_dim
    attn = 2 * h + 3 * heads * qk + (m.kv_lora_rank + m.qk_rope_head_dim) + heads * (m.qk_nope_head_dim + m.v_head_dim) + heads * m.v_head_dim
    attnFormula = '2·h + 3·H·qk_head + (kv_lora + rope) + H·(nope + v) + H·v'
  } else {
    const kv = Math.max(1, a.kv_heads / tp)
    attn = 2 * h + 3 * heads * a.head_dim + 3 * kv * a.head_dim
    attnFormula = '2·h + 3·H·d + 3·K·d'
  }
  const width = (i: number) => i / tp
  const dense = 2 * h + (a.fused_gate_up ? 4 : 3) * width(a.dense_intermediate)
  const routed = a.experts > 1 ? 2 * h + a.experts_per_token * (3 * width(a.intermediate) + 2 * h) : 0
  const mlp = Math.max(a.layers - moeLayers(a) > 0 ? dense : 0, routed)
  const mlpFormula = a.experts > 1 ? '2·h + k·(3·I + 2·h)' : a.fused_gate_up ? '2·h + 4·I' : '2·h + 3·I'
  return attn >= mlp
    ? { bytes: ACT * attn, stage: 'attention', formula: `${ACT} B × (${attnFormula})` }
    : { bytes: ACT * mlp, stage: 'mlp', formula: `${ACT} B × (${mlpFormula})` }
}

/** Logits of the last position of each sequence: bf16 from lm_head plus the float32 copy generate() samples from. */
export const lastLogitsBytesPerSequence = (a: Arch, tp = 1): number => (a.vocab / tp) * (ACT + FP32)

export interface LoraShape {
  /** Input features of each adapted Linear in one layer, with the rank. */
  d_in: number[]
  r: number
}

export interface TrainingActivationTerms {
  /** Saved for backward per token in one decoder layer. */
  per_layer_per_token: number
  /** The layer input kept per token and layer under gradient checkpointing. */
  checkpoint_per_layer_per_token: number
  /** Per token outside the layers: final norm, lm_head input and the loss over the logits. */
  head_per_token: number
  formula: string
}

/**
 * Training (bf16 model, SDPA attention, no dropout): what autograd keeps per token. Per layer: each RMSNorm keeps its
 * float32 input (4·h) and, when its weight trains, its bf16 normalised input (2·h), and hands 2·h to the next Linear;
 * attention keeps q, k, v and the output (2·(2·H·d + 2·K·d)), the float32 logsumexp (4·H) and o_proj's contiguous input
 * (2·H·d); the MLP keeps gate, act(gate), up and the product (4 × 2·I; an MoE token k times, with its gathered input);
 * each LoRA-adapted Linear keeps a float32 copy of its input (4·d_in: PEFT casts x to the fp32 adapter) and the rank-r
 * float32 output of A (4·r). Outside the layers: the final norm (6·h), lm_head's input (2·h) and the loss over the
 * vocabulary: bf16 logits (2·V), their float32 copy (4·V) and log-softmax's output (4·V).
 */
export function trainingActivationTerms(a: Arch, fullFineTune: boolean, lora: LoraShape | null): TrainingActivationTerms {
  const h = a.hidden
  const norm = FP32 * h + (fullFineTune ? ACT * h : 0) + ACT * h
  let attention: number
  if (a.mla) {
    const m = a.mla
    const qk = m.qk_nope_head_dim + m.qk_rope_head_dim
    attention =
      ACT * (m.kv_lora_rank + m.qk_rope_head_dim + m.kv_lora_rank + a.heads * (m.qk_nope_head_dim + m.v_head_dim)) +
      ACT * (2 * a.heads * qk + 2 * a.heads * m.v_head_dim) + FP32 * a.heads + ACT * a.heads * m.v_head_dim
  } else {
    attention = ACT * (2 * a.heads * a.head_dim + 2 * a.kv_heads * a.head_dim) + FP32 * a.heads + ACT * a.heads * a.head_dim
  }
  const denseMlp = 4 * ACT * a.dense_intermediate
  const routedMlp = a.experts > 1 ? a.experts_per_token * (ACT * h + 4 * ACT * a.intermediate) + 2 * FP32 * a.experts : 0
  const mlp = a.experts > 1 && a.dense_layers === 0 ? routedMlp : Math.max(denseMlp, routedMlp)
  const adapters = lora ? lora.d_in.reduce((s, d) => s + FP32 * d + FP32 * lora.r, 0) : 0
  const perLayer = 2 * norm + attention + mlp + adapters
  const head = FP32 * h + ACT * h + ACT * h + ACT * h + (ACT + FP32 + FP32) * a.vocab
  return {
    per_layer_per_token: perLayer,
    checkpoint_per_layer_per_token: ACT * h,
    head_per_token: head,
    formula:
      'per layer: 2 norms × (4·h + 2·h' + (fullFineTune ? ' + 2·h' : '') + ') + attention 2·(2·H·d + 2·K·d) + 4·H + 2·H·d + ' +
      (a.experts > 1 ? 'k·(2·h + 8·I) + 8·E' : '8·I') + (lora ? ' + Σ adapted (4·d_in + 4·r)' : '') +
      '; head: 10·h … + 10·V (bf16 logits, float32 copy, log-softmax)',
  }
}

/** Saved activations of a micro-batch of `tokens` tokens (batch × context), with or without checkpointing. */
export function trainingActivationBytes(a: Arch, t: TrainingActivationTerms, tokens: number, checkpointing: boolean): number {
  const layers = checkpointing
    ? a.layers * t.checkpoint_per_layer_per_token + t.per_layer_per_token
    : a.layers * t.per_layer_per_token
  return tokens * (layers + t.head_per_token)
}
