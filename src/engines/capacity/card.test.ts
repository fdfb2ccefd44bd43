import { describe, expect, it } from 'vitest'
import { capacityCard, cardMarkdown, type CardInput } from './card.js'
import { CUBLAS_WORKSPACE_SOURCE, H100_CONTEXT_BYTES } from './devices.js'
import { findModel } from './models.js'
import { loraParams } from './peft.js'

const llama = findModel('llama-2-7b')!
const input = (memory_gib: number): CardInput => ({
  model: { id: llama.id, name: llama.name, hf_repo: llama.hf_repo, sources: llama.sources },
  arch: llama.arch,
  devices: {
    count: 1, total_bytes: memory_gib * 2 ** 30, cuda_context_bytes: H100_CONTEXT_BYTES, cuda_context_source: 'test',
    cublas_workspace_bytes: 32 * 2 ** 20, cublas_workspace_source: CUBLAS_WORKSPACE_SOURCE,
  },
  devicesFact: { count: 1, memory_gib },
  window: null,
  serving: { runtime: 'transformers', prefill_chunk: 1024, gpu_memory_utilization: 0.9, max_num_batched_tokens: 8192, max_num_seqs: 256, block_size: 16 },
  marginFraction: 0.01,
  countLora: (modules, r) => loraParams(llama.arch, r, modules).trainable,
  contextDtypes: ['bf16', 'int4'],
  kvDtype: 'fp16',
  overheadPercent: null,
  reservedBytesPerDevice: 0,
  ranks: [8, 16],
  loraTargets: [{ name: 'all-linear', modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }],
  adapterDtype: 'bf16',
})

describe('capacity card', () => {
  it('gathers parameters, weights per dtype, KV per token, max context and LoRA sizes', () => {
    const c = capacityCard(input(80))
    expect(c.parameters.total).toBe(6_738_415_616)
    expect(c.weights.find((w) => w.dtype === 'fp32')!.bytes).toBe(4 * 6_738_415_616)
    expect(c.kv_per_token.map((k) => k.dtype)).toEqual(['fp32', 'fp16', 'bf16', 'fp8', 'int8'])
    expect(c.max_context[0]).toMatchObject({ weights_dtype: 'bf16', max_context_tokens: 4096, limited_by: 'max_context' })
    expect(c.lora.find((l) => l.r === 16)!.trainable_params).toBe(39_976_960)
    expect(c.lora.find((l) => l.r === 16)!.adapter_bytes).toBe(2 * 39_976_960)
  })

  it('says when the weights alone do not fit and renders that in Markdown', () => {
    const c = capacityCard(input(8))
    expect(c.max_context[0]).toMatchObject({ weights_dtype: 'bf16', fits_weights: false, max_context_tokens: 0 })
    expect(c.max_context[1]!.fits_weights).toBe(true)
    const md = cardMarkdown(c)
    expect(md).toContain('| bf16 | fp16 | does not fit | weights |')
    expect(md).toContain('- total: 6,738,415,616')
    expect(md).toContain('## Sources')
  })
})
