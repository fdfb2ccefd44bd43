import { describe, expect, it } from 'vitest'
import { DTYPES, weightMemory } from './dtypes.js'
import { GiB, inferenceFit, tensorParallelProblems, trainingFit, type InferenceFitInput } from './fit.js'
import { findModel } from './models.js'
import { countParams } from './params.js'
import { ACCOUNTINGS, fineTuneMemory } from './peft.js'

const arch = (id: string) => findModel(id)!.arch
const weights = (id: string, dtype: keyof typeof DTYPES) => weightMemory(countParams(arch(id)), DTYPES[dtype]).bytes

const base = (id: string, over: Partial<InferenceFitInput> = {}): InferenceFitInput => ({
  arch: arch(id),
  weightBytes: weights(id, 'bf16'),
  kvBytesPerValue: 2,
  context: 4096,
  batch: 1,
  overheadPercent: 20,
  reservedBytesPerDevice: 0,
  devices: { count: 1, memory_gib: 24 },
  tensorParallel: 1,
  applySlidingWindow: false,
  blockSize: 16,
  ...over,
})

describe('inference fit', () => {
  it('adds weights, KV and overhead and compares with one device', () => {
    const f = inferenceFit(base('llama-2-7b'))
    const w = 2 * 6_738_415_616
    const kv = 524_288 * 4096
    expect(f.components.map((c) => c.name)).toEqual(['weights', 'kv_cache', 'overhead', 'reserved'])
    expect(f.per_device_bytes).toBe(w + kv + Math.ceil(0.2 * w))
    expect(f.fits).toBe(true)
    expect(f.headroom_bytes).toBe(24 * GiB - f.per_device_bytes)
  })

  it('finds the largest batch and context that fit, each one more does not', () => {
    const input = base('llama-3.1-8b', { context: 8192, batch: 4 })
    const f = inferenceFit(input)
    const cap = 24 * GiB
    const need = (ctx: number, batch: number) => inferenceFit({ ...input, context: ctx, batch }).per_device_bytes
    expect(need(8192, f.max_batch_at_context)).toBeLessThanOrEqual(cap)
    expect(need(8192, f.max_batch_at_context + 1)).toBeGreaterThan(cap)
    expect(f.max_context_limited_by).toBe('memory')
    expect(need(f.max_context_by_memory!, 4)).toBeLessThanOrEqual(cap)
    expect(need(f.max_context_by_memory! + 1, 4)).toBeGreaterThan(cap)
  })

  it('caps the context at the model maximum', () => {
    const f = inferenceFit(base('llama-2-7b', { devices: { count: 1, memory_gib: 80 } }))
    expect(f.max_context_at_batch).toBe(4096)
    expect(f.max_context_limited_by).toBe('max_context')
    expect(f.max_context_by_memory!).toBeGreaterThan(4096)
  })

  it('splits weights over tensor parallelism and replicates KV heads when there are fewer than devices', () => {
    const f = inferenceFit(base('llama-3.1-70b', { devices: { count: 16, memory_gib: 80 }, tensorParallel: 16 }))
    expect(f.kv_heads_per_device).toBe(1)
    expect(f.components[0]!.per_device_bytes).toBe(Math.ceil(weights('llama-3.1-70b', 'bf16') / 16))
    expect(f.components[1]!.per_device_bytes).toBe(327_680 * 4096 / 8)
    expect(f.replicas).toBe(1)
  })

  it('does not fit 70B in bf16 on one 80 GiB device, and says by how much', () => {
    const f = inferenceFit(base('llama-2-70b', { devices: { count: 1, memory_gib: 80 } }))
    expect(f.fits).toBe(false)
    expect(f.headroom_bytes).toBeLessThan(0)
    expect(f.max_batch_at_context).toBe(0)
    expect(f.max_context_at_batch).toBe(0)
  })

  it('names tensor-parallel degrees that cannot shard a model', () => {
    expect(tensorParallelProblems(arch('qwen2.5-7b'), 8, 8)).toEqual(['28 attention heads cannot be split evenly over 8 devices'])
    expect(tensorParallelProblems(arch('llama-3.1-8b'), 3, 4)).toHaveLength(3)
    expect(tensorParallelProblems(arch('llama-3.1-8b'), 4, 8)).toEqual([])
  })

  it('memory sets no context limit when every layer is windowed', () => {
    const f = inferenceFit(base('mistral-7b', { applySlidingWindow: true, devices: { count: 1, memory_gib: 40 } }))
    expect(f.max_context_by_memory).toBeNull()
    expect(f.max_context_at_batch).toBe(32768)
  })
})

describe('training fit', () => {
  it('shards everything over the devices and leaves activations out unless declared', () => {
    const total = countParams(arch('llama-2-7b')).total
    const memory = fineTuneMemory('full', total, 0, 0, ACCOUNTINGS.zero_16)
    const f = trainingFit({ memory, devices: { count: 4, memory_gib: 40 }, sharding: 'fully_sharded', activationBytesPerDevice: null, reservedBytesPerDevice: 0 })
    expect(f.per_device_bytes).toBe(Math.ceil((16 * total) / 4))
    expect(f.excluded).toEqual(['activations'])
    expect(f.components.find((c) => c.name === 'activations')!.bytes).toBeNull()
    const replicated = trainingFit({ memory, devices: { count: 4, memory_gib: 40 }, sharding: 'replicated', activationBytesPerDevice: GiB, reservedBytesPerDevice: 0 })
    expect(replicated.per_device_bytes).toBe(16 * total + GiB)
    expect(replicated.fits).toBe(false)
    expect(replicated.excluded).toEqual([])
  })
})
