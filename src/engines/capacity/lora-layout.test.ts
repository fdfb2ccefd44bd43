import { describe, expect, it } from 'vitest'
import { adaptedInputsPerLayer, CURRENT, loraForLayout, type Follows } from './lora-layout.js'
import { findModel } from './models.js'
import { resolveTargets, type ModuleName } from './peft.js'

const mixtral = findModel('mixtral-8x7b')!.arch
const V4: Follows = { transformers: '4.x', peft: '0.21' }
const targets = (t: 'all-linear' | string[]): ModuleName[] => {
  const r = resolveTargets(mixtral, t)
  if (!r.ok) throw new Error('unresolved')
  return r.modules
}
const count = (t: 'all-linear' | string[], r: number, follows: Follows = CURRENT, isDefault = false) =>
  loraForLayout(mixtral, 'mixtral', r, targets(t), follows, isDefault)

// Measured on H100 80GB HBM3, torch 2.11, transformers 5.17, peft 0.21, CUDA 13.0 — issue #29: PEFT counts
// 179.8 M trainable (all-linear, r=8) and 343.9 M (w1/w2/w3, r=16) on Mixtral-8x7B, refuses the default targets; the
// API answered 121.1 M, 226.5 M and 6.8 M, which are the transformers-4 figures. The formula is PEFT's own:
// src/peft/utils/transformers_weight_conversion.py (w1 + w3 → gate_up_proj at rank 2·r, router → gate.weight) and
// src/peft/tuners/lora/layer.py ParamWrapper (3-D parameter: r·experts·(in + out)), huggingface/peft @ 5d602fdb.
describe('LoRA on Mixtral under transformers 5 / PEFT 0.21', () => {
  it('all-linear, r=8: 179,832,832 (PEFT prints 179.8 M)', () => {
    const c = count('all-linear', 8)
    if (!c.ok) throw new Error(c.reason)
    expect(c.trainable).toBe(179_832_832)
    expect((c.trainable / 1e6).toFixed(1)).toBe('179.8')
    // 32 layers × [attention 8·26,624 + router 8·(4096 + 8) + gate_up 16·8·(4096 + 28,672) + down 8·8·(14,336 + 4096)]
    expect(c.trainable).toBe(32 * (8 * 26_624 + 8 * 4104 + 16 * 8 * 32_768 + 8 * 8 * 18_432))
    expect(c.modules.find((m) => m.module === 'gate_up_proj')).toMatchObject({ rank: 16, experts: 8, target: 'parameter' })
  })

  it('w1/w2/w3, r=16: 343,932,928 (PEFT prints 343.9 M)', () => {
    const c = count(['w1', 'w2', 'w3'], 16)
    if (!c.ok) throw new Error(c.reason)
    expect(c.trainable).toBe(343_932_928)
    expect((c.trainable / 1e6).toFixed(1)).toBe('343.9')
  })

  it('refuses the default targets, as PEFT does, and half of a fused pair', () => {
    const d = count(['q_proj', 'v_proj'], 16, CURRENT, true)
    expect(d.ok).toBe(false)
    if (!d.ok) expect(d.reason).toMatch(/No `target_modules` passed/)
    const half = count(['w1', 'w2'], 16)
    expect(half.ok).toBe(false)
    if (!half.ok) expect(half.reason).toMatch(/fused into gate_up_proj/)
  })

  it('named attention modules are the same under both layouts (the 6.8 M of q_proj + v_proj at r=16)', () => {
    const c = count(['q_proj', 'v_proj'], 16)
    if (!c.ok) throw new Error(c.reason)
    expect(c.trainable).toBe(6_815_744)
  })

  it('transformers 4 (each expert its own nn.Linear) gives the figures the API gave: 121.1 M and 226.5 M', () => {
    const all = count('all-linear', 8, V4)
    const w = count(['w1', 'w2', 'w3'], 16, V4)
    if (!all.ok || !w.ok) throw new Error('refused')
    expect((all.trainable / 1e6).toFixed(1)).toBe('121.1')
    expect((w.trainable / 1e6).toFixed(1)).toBe('226.5')
    const d = count(['q_proj', 'v_proj'], 16, V4, true)
    expect(d.ok && d.trainable).toBe(6_815_744)
  })

  it('dense models are laid out alike under both versions; MoE experts of other types under transformers 5 are refused', () => {
    const llama = findModel('llama-2-7b')!.arch
    const mods = resolveTargets(llama, 'all-linear')
    if (!mods.ok) throw new Error('unresolved')
    const a = loraForLayout(llama, 'llama', 16, mods.modules, CURRENT, false)
    const b = loraForLayout(llama, 'llama', 16, mods.modules, V4, false)
    expect(a.ok && a.trainable).toBe(39_976_960)
    expect(b.ok && b.trainable).toBe(39_976_960)
    const ds = findModel('deepseek-v2-lite')!.arch
    const dsMods = resolveTargets(ds, 'all-linear')
    if (!dsMods.ok) throw new Error('unresolved')
    expect(loraForLayout(ds, 'deepseek_v2', 16, dsMods.modules, CURRENT, false).ok).toBe(false)
    expect(loraForLayout(ds, 'deepseek_v2', 16, dsMods.modules, V4, false).ok).toBe(true)
  })

  it('a token passes through its routed experts only, for the activations LoRA keeps', () => {
    const c = count('all-linear', 8)
    if (!c.ok) throw new Error(c.reason)
    const inputs = adaptedInputsPerLayer(mixtral, c.modules)
    // q, k, v, o, router: one each; gate_up and down: top-2 experts.
    expect(inputs).toEqual([4096, 4096, 4096, 4096, 4096, 4096, 4096, 14336, 14336])
  })
})
