// LoRA trainable parameters as the named library versions lay the model out (transformers 5 fuses MoE experts).
import type { Arch } from './models.js'
import { loraParams, type AdaptedModule, type ModuleName } from './peft.js'
import { moeLayers } from './params.js'

/** The library versions an answer follows; the current ones are the default. */
export interface Follows {
  transformers: '5.x' | '4.x'
  peft: '0.21'
}
export const CURRENT: Follows = { transformers: '5.x', peft: '0.21' }

export const LAYOUT_SOURCES = {
  '5.x':
    'huggingface/peft @ 5d602fdb (0.20.1.dev0, the code PEFT 0.21 ships) src/peft/utils/transformers_weight_conversion.py: ' +
    '_MOE_TARGET_MODULE_MAPPING["mixtral"] = {gate → gate.weight, w1 → gate_up_proj, w3 → gate_up_proj, w2 → down_proj}; ' +
    'w1 and w3 together set rank_pattern[gate_up_proj] = 2·r (either alone is refused: "fused into gate_up_proj"); ' +
    '"all-linear" adds the v4 expert and router names; target_modules=None becomes an empty set, so no default applies ' +
    'and inject_adapter raises "No `target_modules` passed but also no `target_parameters` found"; ' +
    'src/peft/tuners/lora/layer.py ParamWrapper: a 3-D (experts, in, out) parameter gets lora_A (r·experts × in) and ' +
    'lora_B (out × r·experts) = r·experts·(in + out) parameters',
  '4.x':
    'transformers 4 keeps every expert as its own nn.Linear (experts.N.w1/w2/w3) and the router as nn.Linear gate: ' +
    'r·(d_in + d_out) per adapted Linear (huggingface/peft src/peft/tuners/lora/layer.py Linear.update_layer)',
} as const

export type LayoutModule = AdaptedModule & { rank: number; experts: number; target: 'module' | 'parameter' }

export type LayoutCount =
  | { ok: true; modules: LayoutModule[]; trainable: number; notes: string[] }
  | { ok: false; reason: string; field: 'target_modules' | 'follows' }

const EXPERT_MODULES: readonly ModuleName[] = ['gate_proj', 'up_proj', 'down_proj']

/**
 * Counts LoRA parameters on `modules` (already resolved, aliases folded) the way the named transformers layout builds
 * the model. `requestedDefault` is true when the caller asked for PEFT's default targets.
 */
export function loraForLayout(
  a: Arch, modelType: string | null, r: number, modules: readonly ModuleName[], follows: Follows, requestedDefault: boolean,
): LayoutCount {
  const plain = (mods: readonly ModuleName[]): LayoutModule[] =>
    loraParams(a, r, mods).modules.map((m) => ({ ...m, rank: r, experts: 1, target: 'module' }))
  const moe = moeLayers(a) > 0
  if (follows.transformers === '4.x' || !moe) {
    const list = plain(modules)
    return { ok: true, modules: list, trainable: list.reduce((s, m) => s + m.params, 0), notes: [] }
  }
  const expertTargets = modules.filter((m) => EXPERT_MODULES.includes(m))
  if (modelType !== 'mixtral') {
    if (expertTargets.length === 0) {
      const list = plain(modules)
      return { ok: true, modules: list, trainable: list.reduce((s, m) => s + m.params, 0), notes: [] }
    }
    return {
      ok: false,
      field: 'follows',
      reason:
        `how transformers 5 stores the experts of ${modelType ?? 'an explicit architecture'} and how PEFT 0.21 adapts them ` +
        'is not modelled; target attention modules, or set follows.transformers to "4.x"',
    }
  }
  if (requestedDefault) {
    return {
      ok: false,
      field: 'target_modules',
      reason:
        'PEFT 0.21 under transformers 5 refuses Mixtral without explicit targets ("No `target_modules` passed but also no ' +
        '`target_parameters` found"): its MoE conversion turns the missing default into an empty set. Name the modules, ' +
        'use all-linear, or set follows.transformers to "4.x"',
    }
  }
  const hasGate = modules.includes('gate_proj')
  const hasUp = modules.includes('up_proj')
  if (hasGate !== hasUp) {
    return {
      ok: false,
      field: 'target_modules',
      reason: `PEFT 0.21 refuses ${hasGate ? 'w1 (gate_proj)' : 'w3 (up_proj)'} without ${hasGate ? 'w3 (up_proj)' : 'w1 (gate_proj)'}: under transformers 5 both are fused into gate_up_proj`,
    }
  }
  const L = moeLayers(a)
  const E = a.experts
  const h = a.hidden
  const I = a.intermediate
  const list = plain(modules.filter((m) => !EXPERT_MODULES.includes(m)))
  if (hasGate) {
    const each = 2 * r * E * (h + 2 * I)
    list.push({ module: 'gate_up_proj', d_in: h, d_out: 2 * I, count: L, params_each: each, params: each * L, rank: 2 * r, experts: E, target: 'parameter' })
  }
  if (modules.includes('down_proj')) {
    const each = r * E * (I + h)
    list.push({ module: 'down_proj', d_in: I, d_out: h, count: L, params_each: each, params: each * L, rank: r, experts: E, target: 'parameter' })
  }
  const notes = [
    'transformers 5 stores the experts of each layer as two 3-D parameters (gate_up_proj, down_proj); PEFT 0.21 targets ' +
      'them with ParamWrapper: r·experts·(in + out) each, with rank 2·r on gate_up_proj because w1 and w3 are fused',
  ]
  if (modules.includes('router')) notes.push('the router is targeted as the 2-D parameter gate.weight: r·(hidden + experts) per layer')
  return { ok: true, modules: list, trainable: list.reduce((s, m) => s + m.params, 0), notes }
}

/**
 * Input features of the adapted Linears one token passes through in one layer (for the activations LoRA keeps): an
 * MoE token reaches only its routed and shared experts.
 */
export function adaptedInputsPerLayer(a: Arch, modules: readonly LayoutModule[]): number[] {
  const perToken = a.experts_per_token + a.shared_experts
  return modules.flatMap((m) => {
    const perLayer = m.target === 'parameter' ? m.experts : Math.max(1, Math.round(m.count / a.layers))
    return new Array<number>(Math.min(perLayer, perLayer > 1 ? perToken : 1)).fill(m.d_in)
  })
}
