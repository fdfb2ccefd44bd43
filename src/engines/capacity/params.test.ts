import { describe, expect, it } from 'vitest'
import { archProblems, findModel, MODEL_PRESETS, type ModelPreset } from './models.js'
import { countParams } from './params.js'
import { DTYPES, weightMemory } from './dtypes.js'

const preset = (id: string): ModelPreset => {
  const m = findModel(id)
  if (!m) throw new Error(`no preset ${id}`)
  return m
}

describe('parameter counts from the architecture', () => {
  it('match the published exact totals', () => {
    expect(countParams(preset('gemma-2-9b').arch).non_embedding).toBe(8_324_201_984)
    expect(countParams(preset('qwen2.5-3b').arch).total).toBe(3_085_938_688)
    expect(countParams(preset('llama-3.2-1b').arch).total).toBe(1_235_814_400)
  })

  it('match every published figure of the catalogue within one published step', () => {
    let checked = 0
    for (const m of MODEL_PRESETS) {
      const p = countParams(m.arch)
      for (const [kind, pub] of Object.entries(m.published ?? {})) {
        const computed = p[kind as 'total' | 'non_embedding' | 'active']
        if (pub.rounding === 0) expect(computed, `${m.id} ${kind}`).toBe(pub.value)
        else expect(Math.abs(computed - pub.value), `${m.id} ${kind}`).toBeLessThanOrEqual(pub.rounding)
        checked++
      }
    }
    expect(checked).toBe(8)
  })

  it.each([
    ['llama-2-7b', 6_738_415_616],
    ['llama-2-13b', 13_015_864_320],
    ['llama-2-70b', 68_976_648_192],
    ['llama-3.1-8b', 8_030_261_248],
    ['llama-3.1-70b', 70_553_706_496],
    ['mistral-7b', 7_241_732_096],
    ['mixtral-8x7b', 46_702_792_704],
    ['qwen2.5-7b', 7_615_616_512],
    ['gemma-2-9b', 9_241_705_984],
    ['phi-3-mini', 3_821_079_552],
  ])('%s totals %d parameters (research table, computed)', (id, total) => {
    expect(countParams(preset(id).arch).total).toBe(total)
  })

  it('counts MoE active parameters and Qwen non-embedding parameters', () => {
    expect(countParams(preset('mixtral-8x7b').arch).active).toBe(12_879_925_248)
    expect(countParams(preset('qwen2.5-7b').arch).non_embedding).toBe(6_525_621_760)
    const dense = countParams(preset('mistral-7b').arch)
    expect(dense.active).toBe(dense.total)
  })

  it('keeps its parts adding up', () => {
    for (const m of MODEL_PRESETS) {
      const p = countParams(m.arch)
      expect(p.embedding + p.lm_head + p.attention + p.attention_bias + p.mlp + p.router + p.norms).toBe(p.total)
      expect(p.linear + p.non_linear).toBe(p.total)
      expect(archProblems(m.arch)).toEqual([])
    }
  })
})

describe('weight memory per dtype', () => {
  it('stores every parameter at 2 bytes in bf16', () => {
    expect(weightMemory(countParams(preset('llama-2-7b').arch), DTYPES.bf16).bytes).toBe(2 * 6_738_415_616)
  })

  it('NF4 with double quantisation matches the research table (3.60 GiB for Llama 2 7B)', () => {
    const w = weightMemory(countParams(preset('llama-2-7b').arch), DTYPES.nf4)
    expect(w.bits_per_param_in_dtype).toBeCloseTo(4.127, 10)
    expect(w.bytes / 2 ** 30).toBeCloseTo(3.6, 2)
    expect(w.params_in_dtype + w.params_at_16_bit).toBe(6_738_415_616)
  })

  it('INT4 adds the stated group overhead of 0.15625 bit', () => {
    expect(DTYPES.int4.overhead_bits).toBe(0.15625)
  })
})

describe('catalogue lookup', () => {
  it('finds presets by id, name or Hugging Face repo, case-insensitively', () => {
    expect(findModel('Llama-2-7B')?.id).toBe('llama-2-7b')
    expect(findModel('meta-llama/Llama-2-7b-hf')?.id).toBe('llama-2-7b')
    expect(findModel('gemma 2 9b')?.id).toBe('gemma-2-9b')
    expect(findModel('gpt-5')).toBeUndefined()
  })

  it('reads head_dim explicitly (Gemma 2 9B: 256, not 3584/16)', () => {
    expect(preset('gemma-2-9b').arch.head_dim).toBe(256)
  })
})
