import { describe, expect, it } from 'vitest'
import { adapterPlan } from './adapters.js'
import { findModel } from './models.js'
import { countParams } from './params.js'
import { ACCOUNTINGS, fineTuneMemory, loraParams, PEFT_DEFAULT_TARGETS, resolveTargets } from './peft.js'

const arch = (id: string) => findModel(id)!.arch
const allLinear = (id: string) => {
  const t = resolveTargets(arch(id), 'all-linear')
  if (!t.ok) throw new Error('unresolved')
  return t.modules
}

describe('LoRA trainable parameters', () => {
  it("PEFT's README: Qwen2.5-3B, r=16, q_proj + v_proj → 3,686,400", () => {
    expect(loraParams(arch('qwen2.5-3b'), 16, PEFT_DEFAULT_TARGETS.qwen2!).trainable).toBe(3_686_400)
  })

  it("PEFT's quicktour: Llama-3.2-1B, r=8, q_proj → 524,288", () => {
    expect(loraParams(arch('llama-3.2-1b'), 8, ['q_proj']).trainable).toBe(524_288)
  })

  it('PEFT prints all params = base + trainable for both examples', () => {
    expect(countParams(arch('qwen2.5-3b')).total + 3_686_400).toBe(3_089_625_088)
    expect(countParams(arch('llama-3.2-1b')).total + 524_288).toBe(1_236_338_688)
  })

  it.each([
    ['llama-2-7b', 39_976_960],
    ['llama-2-13b', 62_586_880],
    ['llama-2-70b', 207_093_760],
    ['llama-3.1-8b', 41_943_040],
    ['mistral-7b', 41_943_040],
    ['qwen2.5-7b', 40_370_176],
    ['gemma-2-9b', 54_018_048],
    ['phi-3-mini', 25_165_824],
  ])('%s, r=16, all-linear → %d (research table)', (id, trainable) => {
    expect(loraParams(arch(id), 16, allLinear(id)).trainable).toBe(trainable)
  })

  it('Mixtral all-linear covers every expert and the router', () => {
    const r = loraParams(arch('mixtral-8x7b'), 16, allLinear('mixtral-8x7b'))
    const router = r.modules.find((m) => m.module === 'router')!
    expect(router.params).toBe(32 * 16 * (4096 + 8))
    expect(r.trainable - router.params).toBe(240_123_904)
  })

  it('accepts Mixtral module aliases and refuses modules a model does not have', () => {
    expect(resolveTargets(arch('mixtral-8x7b'), ['w1', 'w2', 'gate'])).toEqual({ ok: true, modules: ['gate_proj', 'down_proj', 'router'] })
    const phi = resolveTargets(arch('phi-3-mini'), ['q_proj'])
    expect(phi.ok).toBe(false)
    if (!phi.ok) expect(phi.available).toContain('qkv_proj')
  })
})

describe('fine-tuning memory', () => {
  const p = countParams(arch('llama-2-7b'))

  it('full fine-tuning at 16 and 18 bytes per parameter', () => {
    const z = fineTuneMemory('full', p.total, 0, 0, ACCOUNTINGS.zero_16)
    expect(z.total).toBe(16 * p.total)
    expect(z.trainable_weights + z.gradients + z.optimizer_states).toBe(z.total)
    expect(z.ratio_to_full).toBe(1)
    expect(z.total / 2 ** 30).toBeCloseTo(100.4, 1)
    expect(fineTuneMemory('full', p.total, 0, 0, ACCOUNTINGS.hf_18).total / 2 ** 30).toBeCloseTo(113.0, 1)
  })

  it('LoRA: frozen base plus adapters under the accounting, far below full fine-tuning', () => {
    const trainable = loraParams(arch('llama-2-7b'), 16, allLinear('llama-2-7b')).trainable
    const m = fineTuneMemory('lora', p.total, trainable, 2 * p.total, ACCOUNTINGS.fp32_16)
    expect(m.frozen_weights).toBe(2 * p.total)
    expect(m.trainable_weights).toBe(4 * trainable)
    expect(m.optimizer_states).toBe(8 * trainable)
    expect(m.total).toBe(2 * p.total + 16 * trainable)
    expect(m.ratio_to_full).toBeCloseTo((2 * p.total + 16 * trainable) / (16 * p.total), 12)
    expect(m.trainable_fraction).toBeCloseTo(trainable / p.total, 12)
  })
})

describe('adapter serving', () => {
  it('bytes per adapter, totals and how many fit a budget', () => {
    const plan = adapterPlan(
      [
        { name: 'r8', r: 8, trainable_params: 1_000_000, count: 10 },
        { name: 'r64', r: 64, trainable_params: 8_000_000, count: 2 },
      ],
      2,
      100_000_000,
    )
    expect(plan.adapters.map((a) => a.bytes_each)).toEqual([2_000_000, 16_000_000])
    expect(plan.total_bytes).toBe(20_000_000 + 32_000_000)
    expect(plan.total_adapters).toBe(12)
    expect(plan.fits_budget).toBe(true)
    expect(plan.max_in_budget).toEqual([
      { name: 'r8', max: 50 },
      { name: 'r64', max: 6 },
    ])
    expect(adapterPlan([{ name: 'a', r: 8, trainable_params: 10, count: 1 }], 2, null).fits_budget).toBeNull()
  })
})
