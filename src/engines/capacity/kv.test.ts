import { describe, expect, it } from 'vitest'
import { kvBytesPerToken, kvCache } from './kv.js'
import { findModel, MODEL_PRESETS } from './models.js'

const arch = (id: string) => findModel(id)!.arch

describe('KV cache', () => {
  it.each([
    ['llama-2-7b', 524_288],
    ['llama-2-13b', 819_200],
    ['llama-2-70b', 327_680],
    ['llama-3.1-8b', 131_072],
    ['llama-3.1-70b', 327_680],
    ['mistral-7b', 131_072],
    ['mixtral-8x7b', 131_072],
    ['qwen2.5-7b', 57_344],
    ['gemma-2-9b', 344_064],
    ['phi-3-mini', 393_216],
  ])('%s: %d bytes per token in fp16', (id, bytes) => {
    expect(kvBytesPerToken(arch(id), 2)).toBe(bytes)
  })

  it('Llama 2 7B, batch 1, 2048 tokens, fp16 = 1 GiB (the published ~1.07 GB)', () => {
    const r = kvCache({ arch: arch('llama-2-7b'), tokens: 2048, batch: 1, bytesPerValue: 2, blockSize: 16, applySlidingWindow: false })
    expect(r.total_bytes).toBe(2 ** 30)
    expect(r.paged.waste_bytes).toBe(0)
  })

  it('every preset at its max context, batch 1, fp16, matches the research table', () => {
    const gib = Object.fromEntries(
      MODEL_PRESETS.filter((m) => !m.check_model).map((m) => [
        m.id,
        kvCache({ arch: m.arch, tokens: m.arch.max_context!, batch: 1, bytesPerValue: 2, blockSize: 16, applySlidingWindow: false })
          .total_bytes / 2 ** 30,
      ]),
    )
    expect(gib['llama-3.1-8b']).toBe(16)
    expect(gib['llama-3.1-70b']).toBe(40)
    expect(gib['qwen2.5-7b']).toBe(7)
    expect(gib['gemma-2-9b']).toBeCloseTo(2.625, 6)
    expect(gib['phi-3-mini']).toBe(1.5)
  })

  it('scales with batch and dtype (fp8 halves, fp32 doubles)', () => {
    const a = arch('llama-3.1-8b')
    const run = (bytes: number, batch: number) =>
      kvCache({ arch: a, tokens: 1000, batch, bytesPerValue: bytes, blockSize: 16, applySlidingWindow: false }).total_bytes
    expect(run(1, 1) * 2).toBe(run(2, 1))
    expect(run(4, 1)).toBe(2 * run(2, 1))
    expect(run(2, 8)).toBe(8 * run(2, 1))
  })

  it('pages: blocks, allocated bytes and the waste of each last page', () => {
    const r = kvCache({ arch: arch('llama-3.1-8b'), tokens: 1000, batch: 3, bytesPerValue: 2, blockSize: 16, applySlidingWindow: false })
    expect(r.paged.blocks).toBe(3 * 63)
    expect(r.paged.allocated_bytes).toBe(3 * 63 * 16 * 131_072)
    expect(r.paged.waste_bytes).toBe(3 * 8 * 131_072)
  })

  it('applies sliding windows only when asked (Gemma 2: 21 local layers capped at 4096)', () => {
    const a = arch('gemma-2-9b')
    const full = kvCache({ arch: a, tokens: 8192, batch: 1, bytesPerValue: 2, blockSize: 16, applySlidingWindow: false })
    const windowed = kvCache({ arch: a, tokens: 8192, batch: 1, bytesPerValue: 2, blockSize: 16, applySlidingWindow: true })
    expect(full.total_bytes).toBe(42 * 8192 * 8192)
    expect(windowed.total_bytes).toBe(21 * 8192 * 8192 + 21 * 8192 * 4096)
    expect(windowed.groups.map((g) => [g.kind, g.layers, g.tokens_cached])).toEqual([
      ['full_attention', 21, 8192],
      ['sliding_window', 21, 4096],
    ])
    // Mistral 7B: every layer windowed, 0.5 GiB at 32768 tokens.
    const m = kvCache({ arch: arch('mistral-7b'), tokens: 32768, batch: 1, bytesPerValue: 2, blockSize: 16, applySlidingWindow: true })
    expect(m.total_bytes).toBe(2 ** 29)
  })
})
