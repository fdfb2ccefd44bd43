// Issue #29 through HTTP: the model's own facts by default, real device bytes, library versions named, refusals named.
import { describe, expect, it } from 'vitest'
import { expectRefusal, okData } from '../helper.js'
import { capacityApp } from './capacity-app.js'

const post = capacityApp()

const MISTRAL_CONFIG = {
  model_type: 'mistral', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8,
  intermediate_size: 14336, vocab_size: 32000, max_position_embeddings: 32768, sliding_window: 4096,
  transformers_version: '4.37.2',
}
const H100 = { count: 1, gpu: 'h100-sxm-80gb' }

describe('POST /kv: the model declares its windows, the runtime keeps them', () => {
  it('Mistral-7B at 6,144 tokens keeps 4,095 per layer by default; sliding_window false gives the old +50 % figure', async () => {
    const d = okData(await post('/kv', { model: 'mistral-7b', tokens: 6144 }))
    expect(d.window_applied).toBe(4096)
    expect(d.groups).toEqual([expect.objectContaining({ kind: 'sliding_window', layers: 32, tokens_cached: 4095 })])
    expect(d.total_bytes).toBe(4095 * 131_072)
    expect(d.source).toMatch(/sliding_window - 1/)
    const off = okData(await post('/kv', { model: 'mistral-7b', tokens: 6144, sliding_window: false }))
    expect(off.total_bytes / d.total_bytes).toBeCloseTo(1.5, 3)
    const other = okData(await post('/kv', { model: 'mistral-7b', tokens: 6144, sliding_window: 2048 }))
    expect(other.groups[0].tokens_cached).toBe(2047)
    expectRefusal(await post('/kv', { model: 'llama-2-7b', tokens: 6144, sliding_window: 2048 }), 'invalid_input', 400)
    const added = okData(await post('/kv', { model: 'llama-2-7b', tokens: 6144, overrides: { sliding_window: 2048 } }))
    expect(added.groups[0]).toMatchObject({ kind: 'sliding_window', layers: 32, tokens_cached: 2047 })
  })

  it('Phi-3-mini at 4,096 keeps 2,046 tokens per layer', async () => {
    const d = okData(await post('/kv', { model: 'phi-3-mini', tokens: 4096 }))
    expect(d.groups[0].tokens_cached).toBe(2046)
  })

  it('a posted config.json gives the preset figures; an override replaces one fact', async () => {
    const fromConfig = okData(await post('/kv', { config: MISTRAL_CONFIG, tokens: 6144 }))
    const preset = okData(await post('/kv', { model: 'mistral-7b', tokens: 6144 }))
    expect(fromConfig.total_bytes).toBe(preset.total_bytes)
    expect(fromConfig.model).toMatchObject({ facts_from: 'config', model_type: 'mistral', config_source: { transformers_version: '4.37.2' } })
    const o = okData(await post('/kv', { model: 'mistral-7b', overrides: { sliding_window: null }, tokens: 6144 }))
    expect(o.model.overridden).toEqual(['sliding_window'])
    expect(o.total_bytes).toBe(6144 * 131_072)
  })

  it('refuses a config it cannot read, naming the key', async () => {
    const r = expectRefusal(await post('/kv', { config: { ...MISTRAL_CONFIG, num_hidden_layers: 'many' }, tokens: 10 }), 'invalid_input', 400)
    expect(r.issues.map((x: { path: string }) => x.path)).toEqual(['config.num_hidden_layers'])
    const t = expectRefusal(await post('/kv', { config: { ...MISTRAL_CONFIG, model_type: 'rwkv' }, tokens: 10 }), 'invalid_input', 400)
    expect(t.issues[0].path).toBe('config.model_type')
    expect(t.hints.model_types).toContain('gemma2')
    expectRefusal(await post('/kv', { config: MISTRAL_CONFIG, model: 'mistral-7b', tokens: 10 }), 'invalid_input', 400)
  })
})

describe('POST /fit on a GPU preset', () => {
  it('llama-2-7b at 4,096 tokens on the H100: batch 31 fits, 32 does not, the largest is 31', async () => {
    const fits = async (batch: number) => okData(await post('/fit', { model: 'llama-2-7b', devices: H100, context: 4096, batch }))
    const at31 = await fits(31)
    expect(at31.fits).toBe(true)
    expect(at31.inference.max_batch_at_context).toBe(31)
    expect(at31.inference.max_batch_limited_by).toBe('memory')
    expect(at31.devices).toMatchObject({ gpu: 'h100-sxm-80gb', total_bytes: 85_017_493_504 })
    expect(at31.margin_bytes).toBe(Math.ceil(0.01 * 85_017_493_504))
    expect((await fits(32)).fits).toBe(false)
    const l3 = okData(await post('/fit', { model: 'llama-3.1-8b', devices: H100, context: 8192 }))
    expect(l3.inference.max_batch_at_context).toBeLessThanOrEqual(58)
  })

  it('lists every weight format and the least-quantised one that fits, with what ruled the others out', async () => {
    const d = okData(await post('/fit', { model: 'llama-3.1-70b', devices: { count: 1, gpu: 'h100-sxm-80gb' }, context: 8192 }))
    expect(d.fits).toBe(false)
    const formats = d.inference.weight_formats.map((f: { format: string }) => f.format)
    expect(formats[0]).toBe('bf16')
    expect(formats).toContain('q4_k_m')
    const cheapest = d.inference.cheapest_fitting_format
    expect(cheapest.ruled_out.map((r: { format: string }) => r.format)).toContain('bf16')
    const at = okData(await post('/fit', { model: 'llama-3.1-70b', devices: H100, context: 8192, dtype: cheapest.format }))
    expect(at.fits).toBe(true)
  })

  it('vLLM: utilisation budget, KV pool and max_num_seqs', async () => {
    const d = okData(await post('/fit', { model: 'llama-3.1-8b', devices: H100, context: 2048, runtime: 'vllm', max_num_seqs: 64 }))
    expect(d.inference).toMatchObject({ runtime: 'vllm', gpu_memory_utilization: 0.9, max_num_seqs: 64, prefill_chunk: null })
    expect(d.inference.max_batch_at_context).toBe(64)
    expect(d.inference.max_batch_limited_by).toBe('max_num_seqs')
    expect(d.inference.kv_pool_bytes).toBeGreaterThan(0)
  })

  it('training: LoRA keeps the cuBLAS workspace, the AdamW step peak and computed activations', async () => {
    const d = okData(await post('/fit', {
      model: 'llama-2-7b', devices: H100, mode: 'training', method: 'lora', r: 16, target_modules: 'all-linear',
      context: 4096, batch: 2, gradient_checkpointing: true,
    }))
    const names = d.components.map((c: { name: string }) => c.name)
    expect(names).toEqual(expect.arrayContaining(['cublas_workspace', 'optimizer_step_peak', 'activations', 'cuda_context']))
    expect(d.components.find((c: { name: string }) => c.name === 'activations').bytes).toBeGreaterThan(0)
    expect(d.components.reduce((s: number, c: { per_device_bytes: number }) => s + c.per_device_bytes, 0)).toBe(d.per_device_bytes)
    expect(d.training).toMatchObject({ zero_stage: 0, sharding: 'replicated', gradient_checkpointing: true, follows: { transformers: '5.x', peft: '0.21' } })
    expect(d.training.max_batch_at_context).toBeGreaterThanOrEqual(2)
  })

  it('refuses devices given twice or not at all, and fields of another runtime or format', async () => {
    const dev = expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: { count: 1, gpu: 'h100-sxm-80gb', memory_gib: 80 } }), 'invalid_input', 400)
    expect(dev.hints.gpus).toContain('a100-40gb')
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: { count: 1 } }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: { count: 1, gpu: 'tpu-v5' } }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: H100, runtime: 'vllm', prefill_chunk: 512 }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: H100, gpu_memory_utilization: 0.8 }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: H100, group_size: 64 }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: H100, mode: 'training', dtype: 'q4_k_m' }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: { count: 4, gpu: 'a100-80gb' }, mode: 'training', sharding: 'replicated', zero_stage: 3 }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-2-7b', devices: { count: 3, gpu: 'a100-80gb' }, pipeline_parallel: 2 }), 'invalid_input', 400)
  })
})

describe('POST /peft follows named library versions', () => {
  it('Mixtral all-linear r=8 under transformers 5 / PEFT 0.21: 179,832,832; under transformers 4: 121,112,576', async () => {
    const v5 = okData(await post('/peft', { model: 'mixtral-8x7b', r: 8, target_modules: 'all-linear' }))
    expect(v5.trainable_params).toBe(179_832_832)
    expect(v5.follows).toMatchObject({ transformers: '5.x', peft: '0.21' })
    expect(v5.modules.find((m: { module: string }) => m.module === 'gate_up_proj')).toMatchObject({ rank: 16, experts: 8, target: 'parameter' })
    const v4 = okData(await post('/peft', { model: 'mixtral-8x7b', r: 8, target_modules: 'all-linear', follows: { transformers: '4.x' } }))
    expect(v4.trainable_params).toBe(121_112_576)
    const w = okData(await post('/peft', { model: 'mixtral-8x7b', r: 16, target_modules: ['w1', 'w2', 'w3'] }))
    expect(w.trainable_params).toBe(343_932_928)
  })

  it('refuses Mixtral with default targets under transformers 5, as PEFT 0.21 does; answers 6.8 M under transformers 4', async () => {
    const r = expectRefusal(await post('/peft', { model: 'mixtral-8x7b' }), 'invalid_input', 400)
    expect(r.reason).toMatch(/No `target_modules` passed/)
    const v4 = okData(await post('/peft', { model: 'mixtral-8x7b', follows: { transformers: '4.x', peft: '0.21' } }))
    expect(v4.trainable_params).toBe(6_815_744)
  })
})

describe('POST /card', () => {
  it('sizes LoRA under the current layout and leaves out the default targets PEFT refuses', async () => {
    const d = okData(await post('/card', { model: 'mixtral-8x7b', devices: { count: 2, gpu: 'h100-sxm-80gb' }, ranks: [8] }))
    expect(d.lora).toEqual([expect.objectContaining({ targets: 'all-linear', r: 8, trainable_params: 179_832_832 })])
    expect(d.devices.gpu).toBe('h100-sxm-80gb')
  })
})
