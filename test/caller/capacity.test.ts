// The capacity lobe through HTTP: known figures, every component listed, and the refusals of bad input.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../src/version.js'
import { expectRefusal, okData } from '../helper.js'
import { capacityApp } from './capacity-app.js'

const post = capacityApp()



describe('POST /kv', () => {
  it('Llama 2 7B in fp16: 524,288 bytes per token, 2 GiB at 4096 tokens', async () => {
    const d = okData(await post('/kv', { model: 'llama-2-7b', tokens: 4096 }))
    expect(d.bytes_per_token).toBe(524_288)
    expect(d.total_bytes).toBe(2 * 2 ** 30)
    expect(d.total_gib).toBe(2)
    expect(d.model.sources.length).toBeGreaterThan(0)
    expect(d.assumptions.join(' ')).toMatch(/2 byte/)
  })

  it('Llama 3.1 8B: 131,072 bytes per token; Gemma 2 9B reads head_dim 256', async () => {
    expect(okData(await post('/kv', { model: 'llama-3.1-8b', tokens: 1 })).bytes_per_token).toBe(131_072)
    const g = okData(await post('/kv', { model: 'google/gemma-2-9b', tokens: 1 }))
    expect(g.arch.head_dim).toBe(256)
    expect(g.bytes_per_token).toBe(344_064)
  })

  it('takes an explicit arch with defaults (kv_heads = heads, head_dim = hidden / heads)', async () => {
    const d = okData(await post('/kv', { arch: { hidden: 4096, layers: 32, heads: 32, intermediate: 11008, vocab: 32000 }, tokens: 10, batch: 2 }))
    expect(d.bytes_per_token).toBe(524_288)
    expect(d.total_bytes).toBe(524_288 * 20)
    expect(d.paged).toMatchObject({ block_size: 16, blocks: 2, allocated_bytes: 524_288 * 32, waste_bytes: 524_288 * 12 })
  })

  it('refuses an unknown preset and lists the known ones', async () => {
    const r = expectRefusal(await post('/kv', { model: 'gpt-5', tokens: 10 }), 'invalid_input', 400)
    expect(r.hints.known_models).toContain('llama-2-7b')
    expect(r.hints.known_models).toHaveLength(13)
  })

  it('refuses weight-only dtypes, bad sizes, over-limit tokens, both model and arch, unknown fields', async () => {
    const nf4 = expectRefusal(await post('/kv', { model: 'llama-2-7b', tokens: 10, dtype: 'nf4' }), 'invalid_input', 400)
    expect(nf4.hints.kv_dtypes).toEqual(['fp32', 'fp16', 'bf16', 'fp8', 'int8'])
    expectRefusal(await post('/kv', { model: 'llama-2-7b', tokens: -5 }), 'invalid_input', 400)
    expectRefusal(await post('/kv', { model: 'llama-2-7b', tokens: 1e12 }), 'over_limit', 422)
    expectRefusal(await post('/kv', { model: 'llama-2-7b', arch: { hidden: 8, layers: 1, heads: 1, intermediate: 8, vocab: 8 }, tokens: 1 }), 'invalid_input', 400)
    expectRefusal(await post('/kv', { tokens: 1 }), 'invalid_input', 400)
    expectRefusal(await post('/kv', { model: 'llama-2-7b', tokens: 1, colour: 'red' }), 'invalid_input', 400)
    expectRefusal(await post('/kv', { arch: { hidden: 100, layers: 2, heads: 3, intermediate: 8, vocab: 8 }, tokens: 1 }), 'invalid_input', 400)
    expectRefusal(await post('/kv', { arch: { hidden: 64, layers: 2, heads: 4, kv_heads: 3, intermediate: 8, vocab: 8 }, tokens: 1 }), 'invalid_input', 400)
    expectRefusal(
      await post('/kv', { arch: { hidden: 131072, layers: 4096, heads: 1024, intermediate: 4_194_304, vocab: 8, experts: 4096 }, tokens: 1 }),
      'over_limit', 422,
    )
  })
})

describe('POST /fit', () => {
  it('lists every component and their sum is the per-device need', async () => {
    const d = okData(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, context: 8192, batch: 4 }))
    expect(d.components.map((c: { name: string }) => c.name)).toEqual([
      'cuda_context', 'cublas_workspace', 'weights', 'kv_cache', 'prefill_activations', 'safety_margin',
    ])
    const sum = d.components.reduce((s: number, c: { per_device_bytes: number }) => s + c.per_device_bytes, 0)
    expect(sum).toBe(d.per_device_bytes)
    const part = (name: string) => d.components.find((c: { name: string }) => c.name === name)
    expect(part('weights').bytes).toBe(2 * 8_030_261_248)
    expect(part('kv_cache').bytes).toBe(131_072 * 8192 * 4)
    for (const c of d.components) expect(c.source.length).toBeGreaterThan(0)
    expect(d.fits).toBe(true)
    expect(d.inference.max_batch_at_context).toBeGreaterThanOrEqual(4)
    expect(d.devices).toMatchObject({ count: 1, memory_gib: 24, gpu: null, total_bytes: 24 * 2 ** 30 })
  })

  it('training: QLoRA on one GPU with activations for batch × context, smaller with gradient checkpointing', async () => {
    const body = { model: 'llama-2-7b', devices: { count: 1, memory_gib: 24 }, mode: 'training', method: 'qlora', r: 16, target_modules: 'all-linear', context: 2048 }
    const d = okData(await post('/fit', { ...body, gradient_checkpointing: true }))
    expect(d.training.trainable_params).toBe(39_976_960)
    expect(d.training.excluded).toEqual([])
    expect(d.training.accounting.total).toBe(16)
    expect(d.weights_dtype.name).toBe('nf4')
    expect(d.fits).toBe(true)
    const without = okData(await post('/fit', body))
    expect(without.training.activation_bytes).toBeGreaterThan(5 * d.training.activation_bytes)
    expect(without.training.max_batch_at_context).toBeLessThan(d.training.max_batch_at_context)
  })

  it('refuses zero devices, impossible tensor parallelism, misplaced fields and unusable dtypes', async () => {
    expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 0, memory_gib: 24 } }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: -1 } }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'qwen2.5-7b', devices: { count: 8, memory_gib: 24 } }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, method: 'lora' }), 'invalid_input', 400)
    expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, mode: 'training', kv_dtype: 'fp8' }), 'invalid_input', 400)
    const q = expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, mode: 'training', method: 'full', dtype: 'int4' }), 'invalid_input', 400)
    expect(q.hints.allowed_dtypes).toEqual(['fp32', 'fp16', 'bf16'])
    expectRefusal(await post('/fit', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 }, kv_dtype: 'int4' }), 'invalid_input', 400)
  })
})

describe('POST /peft', () => {
  it("reproduces PEFT's printed trainable parameters", async () => {
    const qwen = okData(await post('/peft', { model: 'qwen2.5-3b', r: 16 }))
    expect(qwen.trainable_params).toBe(3_686_400)
    expect(qwen.target_modules).toEqual(['q_proj', 'v_proj'])
    expect(qwen.total_params + qwen.trainable_params).toBe(3_089_625_088)
    const llama = okData(await post('/peft', { model: 'llama-3.2-1b', r: 8, target_modules: ['q_proj'] }))
    expect(llama.trainable_params).toBe(524_288)
    expect(llama.modules).toEqual([
      { module: 'q_proj', d_in: 2048, d_out: 2048, count: 16, params_each: 32_768, params: 524_288, rank: 8, experts: 1, target: 'module' },
    ])
  })

  it('states the memory of every part and the ratio to full fine-tuning', async () => {
    const d = okData(await post('/peft', { model: 'llama-3.1-8b', method: 'qlora', r: 64, target_modules: 'all-linear' }))
    const m = d.memory
    expect(m.frozen_weights.bytes + m.trainable_weights.bytes + m.gradients.bytes + m.optimizer_states.bytes).toBe(m.total.bytes)
    expect(d.ratio_to_full).toBeCloseTo(m.total.bytes / d.full_ft_total.bytes, 12)
    expect(d.base_dtype.overhead_bits).toBe(0.127)
    expect(m.activations).toMatchObject({ batch: 1, context: 4096, gradient_checkpointing: false })
    expect(m.activations.bytes).toBeGreaterThan(0)
    expect(m.total_with_activations.bytes).toBe(m.total.bytes + m.activations.bytes)
    const ckpt = okData(await post('/peft', { model: 'llama-3.1-8b', method: 'qlora', r: 64, target_modules: 'all-linear', gradient_checkpointing: true }))
    expect(ckpt.memory.activations.bytes).toBeLessThan(m.activations.bytes / 5)
  })

  it('refuses a missing default (Phi-3) and modules a model lacks, naming the ones it has', async () => {
    const phi = expectRefusal(await post('/peft', { model: 'phi-3-mini' }), 'invalid_input', 400)
    expect(phi.hints.modules).toContain('qkv_proj')
    expectRefusal(await post('/peft', { model: 'phi-3-mini', target_modules: ['q_proj'] }), 'invalid_input', 400)
    expectRefusal(await post('/peft', { model: 'llama-2-7b', method: 'qlora', dtype: 'bf16' }), 'invalid_input', 400)
    expectRefusal(await post('/peft', { model: 'llama-2-7b', r: 100_000 }), 'over_limit', 422)
  })
})

describe('POST /adapters', () => {
  it('sizes adapters and counts how many fit the budget', async () => {
    const d = okData(await post('/adapters', { model: 'llama-3.2-1b', adapters: [{ r: 8, target_modules: ['q_proj'], count: 3 }], budget_gib: 1 }))
    expect(d.adapters[0]).toMatchObject({ trainable_params: 524_288, bytes_each: 1_048_576, bytes: 3 * 1_048_576 })
    expect(d.max_in_budget).toEqual([{ name: 'adapter-1', max: 1024 }])
    expect(d.fits_budget).toBe(true)
  })
})

describe('POST /budget', () => {
  it('counts with the real tokenizer', async () => {
    const d = okData(await post('/budget', { encoding: 'cl100k_base', context_window: 100, texts: ['hello world'], timeout_ms: 60_000 }))
    expect(d.prompt_tokens).toBe(2)
    expect(d.remaining).toBe(98)
    expect(d.framing).toBe('none')
  })

  it('plans a truncation that keeps the system prompt', async () => {
    const d = okData(
      await post('/budget', {
        context_window: 40,
        reserve_output: 10,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'one two three four five six seven eight nine ten eleven twelve' },
          { role: 'user', content: 'What is two plus two?' },
        ],
      }),
    )
    expect(d.fits).toBe(false)
    expect(d.plan.fits_after).toBe(true)
    expect(d.plan.kept_indexes).toContain(0)
    expect(d.plan.actions.every((a: { index: number }) => a.index !== 0)).toBe(true)
  })

  it('refuses too much text, a reserve that fills the window, and both inputs at once', async () => {
    expectRefusal(await post('/budget', { context_window: 100, texts: ['x'.repeat(600_000)] }), 'over_limit', 422)
    expectRefusal(await post('/budget', { context_window: 100, reserve_output: 100, texts: ['hi'] }), 'invalid_input', 400)
    expectRefusal(await post('/budget', { context_window: 100, texts: ['hi'], messages: [{ role: 'user', content: 'hi' }] }), 'invalid_input', 400)
    expectRefusal(await post('/budget', { context_window: 100, encoding: 'p50k_base', texts: ['hi'] }), 'invalid_input', 400)
  })
})

describe('POST /pack', () => {
  it('answers FFD and BFD inline and proves optimality by the lower bound when it can', async () => {
    const d = okData(await post('/pack', { items: [5, 7, 5, 2, 4, 2, 5, 1, 6], capacity: 10 }))
    expect(d.ffd.bins_used).toBe(4)
    expect(d.lower_bound.sum_bound).toBe(4)
    expect(d.exact).toMatchObject({ status: 'optimal', optimal: true, proven_by: 'lower_bound', nodes: 0 })
  })

  it('runs branch and bound in the mill where FFD is not optimal', async () => {
    const d = okData(await post('/pack', { items: [3, 3, 2, 2, 2, 2], capacity: 7 }))
    expect(d.ffd.bins_used).toBe(3)
    expect(d.exact).toMatchObject({ status: 'optimal', optimal: true })
    expect(d.exact.packing.bins_used).toBe(2)
    expect(d.best).toBe('exact')
  })

  it('reports the best packing found, not optimal, when the time budget runs out', async () => {
    const items = [26, 37, 27, 32, 31, 42, 34, 36, 39, 28, 27, 35, 44, 30, 30, 31, 39, 37, 38, 33, 27, 27, 28, 28]
    const d = okData(await post('/pack', { items, capacity: 100, exact: 'always', timeout_ms: 50 }))
    expect(d.exact.optimal).toBe(false)
    expect(d.exact.status).toBe('best_found')
    expect(d.exact.stopped_by).toBe('deadline')
  })

  it('says when a bin list cannot hold the items', async () => {
    const d = okData(await post('/pack', { items: [8, 8, 8], bins: [10, 10], exact: 'always' }))
    expect(d.ffd.unplaced).toEqual(['2'])
    expect(d.exact).toMatchObject({ status: 'infeasible', feasible: false, packing: null })
  })

  it('refuses too-large items, exact mode over 24 items, and both or neither of capacity and bins', async () => {
    expectRefusal(await post('/pack', { items: [11], capacity: 10 }), 'invalid_input', 400)
    expectRefusal(await post('/pack', { items: new Array(25).fill(1), capacity: 10, exact: 'always' }), 'over_limit', 422)
    expectRefusal(await post('/pack', { items: [1], capacity: 10, bins: [10] }), 'invalid_input', 400)
    expectRefusal(await post('/pack', { items: [1] }), 'invalid_input', 400)
    expectRefusal(await post('/pack', { items: [-1], capacity: 10 }), 'invalid_input', 400)
  })
})

describe('POST /occupancy', () => {
  it('answers with the SPEC fields', async () => {
    const d = okData(await post('/occupancy', { compute_capability: '9.0', threads_per_block: 256, registers_per_thread: 32 }))
    expect(d).toMatchObject({
      active_blocks_per_sm: 8,
      active_warps_per_sm: 64,
      max_warps_per_sm: 64,
      occupancy: 1,
      limiter: 'warps',
      limits: { warps: 8, registers: 8, shared_memory: 228, blocks: 32, barriers: 64 },
    })
  })

  it('agrees with cuda_occupancy.h over HTTP on fixture cases the API accepts', async () => {
    const fixture = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'occupancy', 'cases.json'), 'utf8'))
    const INT_MAX = 2147483647
    const accepted = fixture.cases.filter(
      (c: { input: Record<string, number | null>; expected: { status: number } }) =>
        c.expected.status === 0 &&
        (c.input.threads_per_block as number) <= 1024 &&
        (c.input.registers_per_thread as number) <= 255 &&
        (c.input.shared_mem_static_bytes as number) <= 48 * 1024,
    )
    const sample = accepted.filter((_: unknown, k: number) => k % 8 === 0)
    expect(sample.length).toBeGreaterThan(100)
    for (const { input, expected } of sample) {
      const { carveout_percent, ...rest } = input
      const d = okData(await post('/occupancy', carveout_percent === null ? rest : input))
      const limit = (n: number) => (n === INT_MAX ? null : n)
      expect(d.active_blocks_per_sm, JSON.stringify(input)).toBe(expected.active_blocks)
      expect(d.limits).toEqual({
        warps: expected.block_limit_warps,
        registers: limit(expected.block_limit_regs),
        shared_memory: limit(expected.block_limit_shared_mem),
        blocks: expected.block_limit_blocks,
        barriers: limit(expected.block_limit_barriers),
      })
      expect(d.allocated_shared_mem_per_block).toBe(expected.allocated_shared_mem_per_block)
    }
  })

  it('refuses unknown compute capabilities (listing the supported ones) and out-of-range kernels', async () => {
    const r = expectRefusal(await post('/occupancy', { compute_capability: '8.7', threads_per_block: 128, registers_per_thread: 32 }), 'invalid_input', 400)
    expect(r.hints.supported).toEqual(['7.0', '7.5', '8.0', '8.6', '8.9', '9.0', '10.0', '12.0'])
    expectRefusal(await post('/occupancy', { compute_capability: '9.0', threads_per_block: 2048, registers_per_thread: 32 }), 'invalid_input', 400)
    expectRefusal(await post('/occupancy', { compute_capability: '9.0', threads_per_block: 128, registers_per_thread: 300 }), 'invalid_input', 400)
    expectRefusal(await post('/occupancy', { compute_capability: '9.0', threads_per_block: 128, registers_per_thread: 32, shared_mem_static_bytes: 60_000 }), 'invalid_input', 400)
  })
})

describe('POST /card', () => {
  it('renders JSON and Markdown for a model on declared devices', async () => {
    const d = okData(await post('/card', { model: 'llama-3.1-8b', devices: { count: 1, memory_gib: 24 } }))
    expect(d.parameters.total).toBe(8_030_261_248)
    expect(d.kv_per_token.find((k: { dtype: string }) => k.dtype === 'fp16').bytes).toBe(131_072)
    expect(d.max_context.map((m: { weights_dtype: string }) => m.weights_dtype)).toEqual(['bf16', 'int8', 'int4'])
    expect(d.lora.find((l: { r: number; targets: string }) => l.r === 16 && l.targets === 'all-linear').trainable_params).toBe(41_943_040)
    expect(d.markdown).toMatch(/^# Capacity card: Llama 3\.1 8B/)
    expect(d.markdown).toContain('| fp16 | 131,072 | 128.0 |')
  })

  it('refuses a device count the model cannot be split over', async () => {
    expectRefusal(await post('/card', { model: 'llama-3.1-8b', devices: { count: 3, memory_gib: 24 } }), 'invalid_input', 400)
  })
})
