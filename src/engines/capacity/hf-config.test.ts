import { describe, expect, it } from 'vitest'
import { readHfConfig } from './hf-config.js'
import { findModel } from './models.js'
import { countParams } from './params.js'

const ok = (config: Record<string, unknown>) => {
  const r = readHfConfig(config)
  if (!r.ok) throw new Error(JSON.stringify(r.problems))
  return r
}

// Verbatim config.json dumps (public-code index): microsoft/Phi-3-mini-4k-instruct (transformers 4.40.2),
// google/gemma-2-9b Gemma2Config (4.45.2), deepseek-ai/DeepSeek-V2-Lite DeepseekV2Config (5.7.0); the keys that
// carry architecture facts are kept.
const PHI3 = {
  architectures: ['Phi3ForCausalLM'], model_type: 'phi3', hidden_size: 3072, intermediate_size: 8192, num_hidden_layers: 32,
  num_attention_heads: 32, num_key_value_heads: 32, max_position_embeddings: 4096, sliding_window: 2047,
  tie_word_embeddings: false, vocab_size: 32064, rope_theta: 10000.0, rms_norm_eps: 1e-5, transformers_version: '4.40.2',
}
const GEMMA2 = {
  model_type: 'gemma2', hidden_size: 3584, intermediate_size: 14336, num_hidden_layers: 42, num_attention_heads: 16,
  num_key_value_heads: 8, head_dim: 256, vocab_size: 256000, max_position_embeddings: 8192, sliding_window: 4096,
  final_logit_softcapping: 30.0, attn_logit_softcapping: 50.0, transformers_version: '4.45.2',
}
const DEEPSEEK_V2_LITE = {
  model_type: 'deepseek_v2', hidden_size: 2048, intermediate_size: 10944, moe_intermediate_size: 1408, num_hidden_layers: 27,
  num_attention_heads: 16, num_key_value_heads: 16, n_routed_experts: 64, n_shared_experts: 2, num_experts_per_tok: 6,
  first_k_dense_replace: 1, moe_layer_freq: 1, kv_lora_rank: 512, q_lora_rank: null, qk_nope_head_dim: 128,
  qk_rope_head_dim: 64, v_head_dim: 128, vocab_size: 102400, max_position_embeddings: 163840, tie_word_embeddings: false,
  transformers_version: '5.7.0',
}

describe('a Hugging Face config.json → the same facts as the preset', () => {
  it.each([
    ['phi-3-mini', PHI3],
    ['gemma-2-9b', GEMMA2],
    ['deepseek-v2-lite', DEEPSEEK_V2_LITE],
  ] as const)('%s', (id, config) => {
    const r = ok(config)
    expect(r.arch).toEqual(findModel(id)!.arch)
    expect(r.model_type).toBe(config.model_type)
    expect(r.transformers_version).toBe(config.transformers_version)
  })

  it('reads windows per layer: Gemma 2 alternates, Mistral and Phi-3 window every layer, Qwen2 only when use_sliding_window', () => {
    expect(ok(GEMMA2).arch.sliding_window_layers).toBe(21)
    expect(ok(PHI3).arch.sliding_window_layers).toBe(32)
    const qwen = { model_type: 'qwen2', hidden_size: 3584, intermediate_size: 18944, num_hidden_layers: 28, num_attention_heads: 28, num_key_value_heads: 4, vocab_size: 152064, sliding_window: 131072, use_sliding_window: false, max_window_layers: 28 }
    expect(ok(qwen).arch.sliding_window).toBeNull()
    expect(countParams(ok(qwen).arch).total).toBe(countParams(findModel('qwen2.5-7b')!.arch).total)
    const swa = ok({ ...qwen, use_sliding_window: true, sliding_window: 4096, max_window_layers: 20 }).arch
    expect(swa.layer_types.filter((t) => t === 'sliding_attention')).toHaveLength(8)
    expect(swa.layer_types[20]).toBe('sliding_attention')
    const declared = ok({ ...GEMMA2, layer_types: new Array(42).fill('full_attention') }).arch
    expect(declared.sliding_window_layers).toBe(0)
  })

  it('reads GQA, MQA and an explicit head_dim', () => {
    const base = { model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32, num_attention_heads: 32, vocab_size: 128256 }
    expect(ok(base).arch.kv_heads).toBe(32)
    expect(ok({ ...base, num_key_value_heads: 1 }).arch.kv_heads).toBe(1)
    expect(ok({ ...base, num_key_value_heads: 8, head_dim: 64 }).arch.head_dim).toBe(64)
    expect(ok({ ...base, tie_word_embeddings: true }).arch.tie_embeddings).toBe(true)
  })

  it('refuses what it cannot interpret, naming the key', () => {
    const problems = (c: Record<string, unknown>) => {
      const r = readHfConfig(c)
      return r.ok ? [] : r.problems.map((p) => p.key)
    }
    expect(problems({ ...PHI3, model_type: 'mamba' })).toEqual(['model_type'])
    expect(problems({ ...PHI3, hidden_size: '3072' })).toEqual(['hidden_size'])
    expect(problems({ ...PHI3, num_hidden_layers: undefined })).toContain('num_hidden_layers')
    expect(problems({ ...PHI3, quantization_config: { quant_method: 'awq', bits: 4 } })).toEqual(['quantization_config'])
    expect(problems({ ...PHI3, num_key_value_heads: 5 })).toEqual(['num_key_value_heads'])
    expect(problems({ ...GEMMA2, layer_types: ['sliding_attention', 'linear_attention', ...new Array(40).fill('full_attention')] })).toEqual(['layer_types[1]'])
    expect(problems({ ...DEEPSEEK_V2_LITE, moe_layer_freq: 2 })).toEqual(['moe_layer_freq'])
    expect(problems({ ...PHI3, attention_bias: true })).toEqual(['attention_bias'])
    expect(problems({ model_type: 'llama', hidden_size: 100, num_attention_heads: 3, num_hidden_layers: 2, intermediate_size: 8, vocab_size: 8 })).toEqual(['head_dim'])
  })
})
