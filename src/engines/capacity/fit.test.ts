import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../version.js'
import type { CapacityMeasurements } from './measurements-fixture.js'
import { cublasWorkspaceBytes, findGpu, gpuDeviceSpec } from './devices.js'
import { inferencePlan, tensorParallelProblems, type DeviceSpec, type InferencePlanInput, type ServingModel } from './fit.js'
import { findModel } from './models.js'
import { weightBytes } from './weights.js'

/** Issue #29's H100 figures (measured on H100 80GB HBM3, torch 2.11, transformers 5.17, peft 0.21, CUDA 13.0). */
const fixture = JSON.parse(
  readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'capacity', 'h100-measurements.json'), 'utf8'),
) as CapacityMeasurements

const arch = (id: string) => findModel(id)!.arch
const h100 = findGpu('h100-sxm-80gb')!
const device = (g = h100, count = 1): DeviceSpec => gpuDeviceSpec(g, count)
const transformers: ServingModel = {
  runtime: 'transformers', prefill_chunk: 1024, gpu_memory_utilization: 0.9, max_num_batched_tokens: 8192, max_num_seqs: 256, block_size: 16,
}
const plan = (id: string, over: Partial<InferencePlanInput> = {}) =>
  inferencePlan({
    arch: arch(id),
    weightBytes: weightBytes(arch(id), 'bf16').bytes,
    kvBytesPerValue: 2,
    context: 4096,
    batch: 1,
    devices: device(),
    tensorParallel: 1,
    pipelineParallel: 1,
    window: arch(id).sliding_window,
    serving: transformers,
    marginFraction: 0.01,
    declared: [],
    ...over,
  })

describe('the device model', () => {
  it('takes the H100 usable bytes and CUDA context measured in issue #29 (fixture)', () => {
    expect(h100.total_bytes).toBe(fixture.device.total_bytes)
    expect(h100.total_bytes / 2 ** 30).toBeCloseTo(79.18, 2)
    expect(h100.cuda_context_bytes).toBe(fixture.device.cuda_context_mib * 2 ** 20)
  })

  it("names the CUDA context and cuBLAS's workspace as components (32 MiB on Hopper, PyTorch CublasHandlePool.cpp)", () => {
    const p = plan('llama-2-7b')
    const names = p.components.map((c) => c.name)
    expect(names).toEqual(['cuda_context', 'cublas_workspace', 'weights', 'kv_cache', 'prefill_activations', 'safety_margin'])
    expect(p.components.find((c) => c.name === 'cublas_workspace')!.per_device_bytes).toBe(32 * 2 ** 20)
    expect(cublasWorkspaceBytes('8.0')).toBe(4096 * 1024 * 2 + 16 * 1024 * 8)
    for (const c of p.components) {
      expect(c.formula.length, c.name).toBeGreaterThan(0)
      expect(c.source.length, c.name).toBeGreaterThan(0)
    }
    const sum = p.components.reduce((s, c) => s + c.per_device_bytes!, 0)
    expect(sum).toBe(p.per_device_bytes)
  })
})

describe('/fit never says more than the card holds (issue #29 H100 edges, measured)', () => {
  it.each(fixture.fit_edges.map((e) => [e.model, e.context, e] as const))('%s at %d tokens', (id, context, edge) => {
    const fits = (batch: number) => plan(id, { context, batch }).fits
    for (const b of edge.runs) expect(fits(b), `batch ${b} ran on the H100`).toBe(true)
    for (const b of edge.out_of_memory) expect(fits(b), `batch ${b} ran out of memory on the H100`).toBe(false)
    const max = plan(id, { context }).max_batch_at_context
    expect(max).toBeLessThan(Math.min(...edge.out_of_memory))
    if (edge.api_before !== null) expect(max).toBeLessThan(edge.api_before)
  })

  it('llama-2-7b at 4,096: 31 fits and 32 does not, and the largest batch is exactly 31', () => {
    expect(plan('llama-2-7b', { batch: 31 }).fits).toBe(true)
    expect(plan('llama-2-7b', { batch: 32 }).fits).toBe(false)
    expect(plan('llama-2-7b').max_batch_at_context).toBe(31)
  })

  it('llama-3.1-8b at 8,192: 58 needs more than the 85,017,493,504 bytes the card holds, so the answer is 57', () => {
    const at58 = plan('llama-3.1-8b', { context: 8192, batch: 58, marginFraction: 0 })
    // weights 16.06e9 + KV 58 GiB + prefill 58 × 1024 × 102,400 B + context and workspace > the card, margin or not.
    expect(at58.per_device_bytes).toBeGreaterThan(h100.total_bytes)
    expect(plan('llama-3.1-8b', { context: 8192 }).max_batch_at_context).toBe(57)
  })

  it('prefill activations grow with batch × chunk, not as a share of the weights', () => {
    const act = (batch: number, chunk: number) =>
      plan('llama-2-7b', { batch, serving: { ...transformers, prefill_chunk: chunk } }).components.find((c) => c.name === 'prefill_activations')!
        .per_device_bytes!
    const logits = 32000 * 6
    // Llama MLP stage: 2 B × (2·h + 3·I) = 82,432 B per token.
    expect(act(1, 1024)).toBe(1024 * 82_432 + logits)
    expect(act(4, 1024) - 4 * logits).toBe(4 * (act(1, 1024) - logits))
    expect(act(2, 512)).toBe(2 * 512 * 82_432 + 2 * logits)
  })

  it('the margin is stated and kept: headroom of a fit is never negative', () => {
    for (const id of ['llama-2-7b', 'llama-3.1-8b', 'mistral-7b']) {
      const p = plan(id, { context: 4096 })
      const at = plan(id, { context: 4096, batch: p.max_batch_at_context })
      expect(at.fits).toBe(true)
      expect(at.headroom_bytes).toBeGreaterThanOrEqual(0)
      expect(at.components.find((c) => c.name === 'safety_margin')!.per_device_bytes).toBe(Math.ceil(0.01 * h100.total_bytes))
    }
  })
})

describe('inverse answers and parallelism', () => {
  it('the longest context at a batch, limited by memory or by the model', () => {
    const p = plan('llama-3.1-8b', { batch: 16, context: 8192 })
    expect(p.max_context_limited_by).toBe('memory')
    const t = p.max_context_by_memory!
    expect(plan('llama-3.1-8b', { batch: 16, context: t }).fits).toBe(true)
    expect(plan('llama-3.1-8b', { batch: 16, context: t + 1 }).fits).toBe(false)
    const small = plan('llama-2-7b', { batch: 1 })
    expect(small.max_context_limited_by).toBe('max_context')
    expect(small.max_context_at_batch).toBe(4096)
  })

  it('memory sets no context limit when every layer is windowed (Mistral under transformers)', () => {
    const p = plan('mistral-7b', { batch: 1 })
    expect(p.max_context_by_memory).toBeNull()
    expect(p.max_context_at_batch).toBe(32768)
  })

  it('splits weights over tensor parallelism and the layers over pipeline stages', () => {
    const tp = plan('llama-3.1-70b', { devices: device(h100, 8), tensorParallel: 8 })
    expect(tp.kv_heads_per_device).toBe(1)
    expect(tp.components.find((c) => c.name === 'weights')!.per_device_bytes).toBe(Math.ceil(weightBytes(arch('llama-3.1-70b'), 'bf16').bytes / 8))
    const pp = plan('llama-3.1-70b', { devices: device(h100, 8), tensorParallel: 4, pipelineParallel: 2 })
    expect(pp.stage_layers).toBe(40)
    expect(pp.replicas).toBe(1)
    const kvFull = plan('llama-3.1-70b', { devices: device(h100, 8), tensorParallel: 4 }).components.find((c) => c.name === 'kv_cache')!
    expect(pp.components.find((c) => c.name === 'kv_cache')!.per_device_bytes).toBe(Math.ceil(kvFull.per_device_bytes! / 2))
    expect(tensorParallelProblems(arch('qwen2.5-7b'), 8, 8)).toEqual(['28 attention heads cannot be split evenly over 8 devices'])
    expect(tensorParallelProblems(arch('llama-3.1-8b'), 4, 8, 4)).toHaveLength(1)
  })

  it('vLLM: utilisation × total holds weights, the profiled peak and KV blocks; the context stays outside', () => {
    const vllm: ServingModel = { ...transformers, runtime: 'vllm' }
    const p = plan('llama-3.1-8b', { serving: vllm, context: 8192, batch: 8 })
    expect(p.usable_bytes).toBe(Math.floor(0.9 * h100.total_bytes))
    expect(p.components.map((c) => c.name)).toContain('profiled_activation_peak')
    expect(p.components.map((c) => c.name)).not.toContain('safety_margin')
    expect(p.fits).toBe(true)
    const maxed = plan('llama-3.1-8b', { serving: { ...vllm, max_num_seqs: 4 }, context: 1024 })
    expect(maxed.max_batch_at_context).toBe(4)
    expect(maxed.max_batch_limited_by).toBe('max_num_seqs')
    const greedy = plan('llama-3.1-8b', { serving: { ...vllm, gpu_memory_utilization: 1 } })
    expect(greedy.fits).toBe(false)
    expect(greedy.problems.join(' ')).toMatch(/gpu_memory_utilization/)
  })
})
