// LoRA trainable parameters (r·(d_in + d_out) per adapted Linear) and fine-tuning memory by accounting.
import type { Arch } from './models.js'
import { moeLayers } from './params.js'

/** Linear modules of a decoder block, by their transformers names (Mixtral's w1/w3/w2/gate are aliased). */
export const MODULE_NAMES = [
  'q_proj', 'k_proj', 'v_proj', 'o_proj', 'qkv_proj', 'q_a_proj', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_b_proj',
  'gate_proj', 'up_proj', 'down_proj', 'gate_up_proj', 'router',
] as const
export type ModuleName = (typeof MODULE_NAMES)[number]

export const MODULE_ALIASES: Readonly<Record<string, ModuleName>> = {
  w1: 'gate_proj',
  w3: 'up_proj',
  w2: 'down_proj',
  gate: 'router',
}

export interface LinearShape {
  module: ModuleName
  d_in: number
  d_out: number
  /** Copies of this Linear in the whole model (layers × experts). */
  count: number
}

/** The Linear layers inside the blocks of an architecture (lm_head excluded, as PEFT's all-linear does). */
export function blockLinears(a: Arch): LinearShape[] {
  const L = a.layers
  const h = a.hidden
  const out: LinearShape[] = []
  if (a.mla) {
    const m = a.mla
    const qk = m.qk_nope_head_dim + m.qk_rope_head_dim
    if (m.q_lora_rank === null) out.push({ module: 'q_proj', d_in: h, d_out: a.heads * qk, count: L })
    else {
      out.push({ module: 'q_a_proj', d_in: h, d_out: m.q_lora_rank, count: L })
      out.push({ module: 'q_b_proj', d_in: m.q_lora_rank, d_out: a.heads * qk, count: L })
    }
    out.push({ module: 'kv_a_proj_with_mqa', d_in: h, d_out: m.kv_lora_rank + m.qk_rope_head_dim, count: L })
    out.push({ module: 'kv_b_proj', d_in: m.kv_lora_rank, d_out: a.heads * (m.qk_nope_head_dim + m.v_head_dim), count: L })
    out.push({ module: 'o_proj', d_in: a.heads * m.v_head_dim, d_out: h, count: L })
  } else {
    const qDim = a.heads * a.head_dim
    const kvDim = a.kv_heads * a.head_dim
    if (a.fused_qkv) out.push({ module: 'qkv_proj', d_in: h, d_out: qDim + 2 * kvDim, count: L })
    else {
      out.push({ module: 'q_proj', d_in: h, d_out: qDim, count: L })
      out.push({ module: 'k_proj', d_in: h, d_out: kvDim, count: L })
      out.push({ module: 'v_proj', d_in: h, d_out: kvDim, count: L })
    }
    out.push({ module: 'o_proj', d_in: qDim, d_out: h, count: L })
  }
  const moe = moeLayers(a)
  const mlp = (width: number, count: number) => {
    if (count === 0) return
    if (a.fused_gate_up) out.push({ module: 'gate_up_proj', d_in: h, d_out: 2 * width, count })
    else {
      out.push({ module: 'gate_proj', d_in: h, d_out: width, count })
      out.push({ module: 'up_proj', d_in: h, d_out: width, count })
    }
    out.push({ module: 'down_proj', d_in: width, d_out: h, count })
  }
  mlp(a.dense_intermediate, L - moe)
  mlp(a.intermediate, moe * (a.experts + a.shared_experts))
  // Mixtral's router is an nn.Linear; DeepSeek's MoEGate holds a bare parameter, which all-linear does not pick.
  if (moe > 0 && !a.mla) out.push({ module: 'router', d_in: h, d_out: a.experts, count: moe })
  return out
}

/** PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for the model types of the catalogue. */
export const PEFT_DEFAULT_TARGETS: Readonly<Record<string, ModuleName[]>> = {
  llama: ['q_proj', 'v_proj'],
  mistral: ['q_proj', 'v_proj'],
  mixtral: ['q_proj', 'v_proj'],
  qwen2: ['q_proj', 'v_proj'],
  gemma: ['q_proj', 'v_proj'],
  gemma2: ['q_proj', 'v_proj'],
}

export const PEFT_TARGETS_SOURCE =
  'huggingface/peft src/peft/utils/constants.py @ 00073fe8: TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING ' +
  '(llama, mistral, mixtral, qwen2, gemma, gemma2 → q_proj, v_proj; no entry for phi3 or deepseek_v2/v3); ' +
  'INCLUDE_LINEAR_LAYERS_SHORTHAND "all-linear"'

export interface AdaptedModule extends LinearShape {
  /** r · (d_in + d_out) per copy. */
  params_each: number
  params: number
}

export interface LoraCount {
  r: number
  modules: AdaptedModule[]
  trainable: number
}

export type TargetResolution =
  | { ok: true; modules: ModuleName[] }
  | { ok: false; unknown: string[]; available: ModuleName[] }

/** Resolves module names (aliases allowed) or 'all-linear' against an architecture's Linear layers. */
export function resolveTargets(a: Arch, targets: 'all-linear' | readonly string[]): TargetResolution {
  const available = [...new Set(blockLinears(a).map((l) => l.module))]
  if (targets === 'all-linear') return { ok: true, modules: available }
  const modules: ModuleName[] = []
  const unknown: string[] = []
  for (const raw of targets) {
    const name = (MODULE_ALIASES[raw] ?? raw) as ModuleName
    if (available.includes(name)) {
      if (!modules.includes(name)) modules.push(name)
    } else unknown.push(raw)
  }
  return unknown.length ? { ok: false, unknown, available } : { ok: true, modules }
}

export function loraParams(a: Arch, r: number, modules: readonly ModuleName[]): LoraCount {
  const adapted = blockLinears(a)
    .filter((l) => modules.includes(l.module))
    .map((l) => {
      const each = r * (l.d_in + l.d_out)
      return { ...l, params_each: each, params: each * l.count }
    })
  return { r, modules: adapted, trainable: adapted.reduce((s, m) => s + m.params, 0) }
}

export type AccountingName = 'zero_16' | 'hf_18' | 'fp32_16'

export interface Accounting {
  name: AccountingName
  /** Bytes per trainable parameter for its weights, gradients and optimizer states. */
  weights: number
  gradients: number
  optimizer: number
  total: number
  statement: string
  source: string
}

export const ACCOUNTINGS: Readonly<Record<AccountingName, Accounting>> = Object.freeze({
  zero_16: {
    name: 'zero_16', weights: 2, gradients: 2, optimizer: 12, total: 16,
    statement: 'mixed-precision Adam, ZeRO accounting: fp16 weights 2 + fp16 gradients 2 + fp32 master weights, ' +
      'Adam m and v 12 = 16 bytes per trainable parameter',
    source: 'ZeRO (Rajbhandari et al. 2020) "2Ψ + 2Ψ + KΨ = 16Ψ bytes" with K = 12',
  },
  hf_18: {
    name: 'hf_18', weights: 6, gradients: 4, optimizer: 8, total: 18,
    statement: 'mixed-precision AdamW, Hugging Face accounting: fp16 + fp32 weights 6 + fp32 gradients 4 + Adam m ' +
      'and v 8 = 18 bytes per trainable parameter',
    source: 'Hugging Face Transformers docs, "Model training anatomy" (model_memory_anatomy)',
  },
  fp32_16: {
    name: 'fp32_16', weights: 4, gradients: 4, optimizer: 8, total: 16,
    statement: 'fp32 training (PEFT keeps adapters in fp32 by default): weights 4 + gradients 4 + Adam m and v 8 = ' +
      '16 bytes per trainable parameter',
    source: 'huggingface/accelerate src/accelerate/commands/estimate.py @ 16cb6eb8 (float32 branch)',
  },
})

export interface TrainableMemory {
  weights: number
  gradients: number
  optimizer: number
  total: number
}

export function trainableMemory(params: number, acc: Accounting): TrainableMemory {
  return {
    weights: params * acc.weights,
    gradients: params * acc.gradients,
    optimizer: params * acc.optimizer,
    total: params * acc.total,
  }
}

export type FineTuneMethod = 'full' | 'lora' | 'qlora'

export interface FineTuneMemory {
  method: FineTuneMethod
  total_params: number
  trainable_params: number
  trainable_fraction: number
  /** Frozen base weights (0 for full fine-tuning, where every weight is trainable). */
  frozen_weights: number
  /** Trainable weights, including master copies the accounting keeps. */
  trainable_weights: number
  gradients: number
  optimizer_states: number
  total: number
  /** The same model fully fine-tuned under the same accounting. */
  full_ft_total: number
  ratio_to_full: number
}

/**
 * Memory of fine-tuning without activations: frozen base (`frozenBaseBytes`, in its storage format) plus the
 * trainable parameters under an accounting. Full fine-tuning trains all `totalParams`.
 */
export function fineTuneMemory(
  method: FineTuneMethod,
  totalParams: number,
  loraTrainable: number,
  frozenBaseBytes: number,
  acc: Accounting,
): FineTuneMemory {
  const trainable = method === 'full' ? totalParams : loraTrainable
  const frozen = method === 'full' ? 0 : frozenBaseBytes
  const t = trainableMemory(trainable, acc)
  const total = frozen + t.total
  const full = totalParams * acc.total
  return {
    method,
    total_params: totalParams,
    trainable_params: trainable,
    trainable_fraction: totalParams === 0 ? 0 : trainable / totalParams,
    frozen_weights: frozen,
    trainable_weights: t.weights,
    gradients: t.gradients,
    optimizer_states: t.optimizer,
    total,
    full_ft_total: full,
    ratio_to_full: full === 0 ? 0 : total / full,
  }
}
