import { describe, expect, it } from 'vitest'
import { DTYPES, weightMemory } from './dtypes.js'
import { findModel, MODEL_PRESETS } from './models.js'
import { countParams } from './params.js'
import { tensorParams, weightTensors } from './tensors.js'
import { ggufTensorType, useMoreBits, weightBytes } from './weights.js'

const arch = (id: string) => findModel(id)!.arch
const gib = (id: string, f: Parameters<typeof weightBytes>[1]) => weightBytes(arch(id), f).bytes / 2 ** 30

describe('the tensor list', () => {
  it('adds up to the parameter count of every preset', () => {
    for (const m of MODEL_PRESETS) {
      expect(weightTensors(m.arch).reduce((s, t) => s + tensorParams(t), 0), m.id).toBe(countParams(m.arch).total)
    }
  })
})

describe('GGUF file types as llama.cpp quantises them', () => {
  // llama-bench prints the model size of Meta-Llama-3.1-8B-Instruct GGUFs as Q4_K_M 4.58 GiB, Q5_K_M 5.33 GiB,
  // Q6_K 6.14 GiB, Q8_0 7.95 GiB, and Llama 3.1 70B Q4_K_M 39.59 GiB (llama-bench result tables in the public-code
  // index, llama.cpp b9672/b9739); effective bits per weight 4.89 (Q4_K_M), 8.50 (Q8_0), 6.56 (Q6_K).
  it.each([
    ['llama-3.1-8b', 'q4_k_m', '4.58'],
    ['llama-3.1-8b', 'q5_k_m', '5.33'],
    ['llama-3.1-8b', 'q6_k', '6.14'],
    ['llama-3.1-8b', 'q8_0', '7.95'],
    ['llama-3.1-70b', 'q4_k_m', '39.59'],
  ] as const)('%s %s = %s GiB', (id, f, printed) => {
    expect(gib(id, f).toFixed(2)).toBe(printed)
  })

  it('bits per weight from the block layouts', () => {
    expect(weightBytes(arch('llama-3.1-8b'), 'q4_k_m').bits_per_weight.toFixed(2)).toBe('4.89')
    expect(weightBytes(arch('llama-3.1-8b'), 'q8_0').bits_per_weight.toFixed(2)).toBe('8.50')
    expect(weightBytes(arch('llama-3.1-8b'), 'q6_k').bits_per_weight.toFixed(2)).toBe('6.56')
  })

  it('follows llama-quant.cpp: output Q6_K, attn_v and ffn_down Q6_K on use_more_bits layers, Q8_0 for 8 experts', () => {
    const a = arch('llama-3.1-8b')
    const tensors = weightTensors(a)
    const type = (role: string, layer: number | null) =>
      ggufTensorType(a, 'q4_k_m', tensors.find((t) => t.role === role && t.layer === layer)!)
    expect(type('output', null)).toBe('Q6_K')
    expect(type('token_embd', null)).toBe('Q4_K')
    expect(type('attn_v', 0)).toBe('Q6_K')
    expect(type('attn_v', 4)).toBe('Q4_K')
    expect(type('ffn_down', 6)).toBe('Q6_K')
    expect(type('attn_q', 0)).toBe('Q4_K')
    expect(type('vector', 0)).toBe('F32')
    // use_more_bits(i, 32): layers 0-3, 28-31 and every third from 6.
    expect(Array.from({ length: 32 }, (_, i) => i).filter((i) => useMoreBits(i, 32))).toEqual([0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31])
    const mx = arch('mixtral-8x7b')
    const mt = weightTensors(mx)
    expect(ggufTensorType(mx, 'q4_k_m', mt.find((t) => t.role === 'attn_k')!)).toBe('Q8_0')
    // Tied embeddings are quantised as the output head.
    const gemma = arch('gemma-2-9b')
    expect(ggufTensorType(gemma, 'q4_k_m', weightTensors(gemma)[0]!)).toBe('Q6_K')
  })
})

describe('GPTQ and AWQ with group sizes', () => {
  it('per Linear: packed weights, an fp16 scale and a packed zero per group and column, GPTQ adds g_idx', () => {
    const a = arch('llama-2-7b')
    const p = countParams(a)
    const linear = p.linear
    const g = 128
    // Every Linear of Llama 2 7B has d_in a multiple of 128: groups = d_in / 128.
    const perParam = 4 / 8 + (2 + 0.5) / g
    const gIdx = 4 * (32 * (4 * 4096 + 4096 + 4096 + 11008))
    const rest = 2 * (p.total - linear)
    expect(weightBytes(a, 'awq-int4', g).bytes).toBe(Math.ceil(linear * perParam) + rest)
    expect(weightBytes(a, 'gptq-int4', g).bytes).toBe(Math.ceil(linear * perParam) + gIdx + rest)
    expect(weightBytes(a, 'awq-int4', 32).bytes).toBeGreaterThan(weightBytes(a, 'awq-int4', 128).bytes)
    expect(weightBytes(a, 'awq-int4', -1).bytes).toBeLessThan(weightBytes(a, 'awq-int4', 128).bytes)
    expect(weightBytes(a, 'gptq-int8', g).bytes).toBeGreaterThan(weightBytes(a, 'gptq-int4', g).bytes)
  })

  it('keeps the plain formats as before', () => {
    const a = arch('llama-3.1-8b')
    for (const d of ['bf16', 'fp8', 'int8', 'int4', 'nf4'] as const) {
      expect(weightBytes(a, d).bytes).toBe(weightMemory(countParams(a), DTYPES[d]).bytes)
    }
  })
})
