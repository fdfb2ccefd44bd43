// POST /kv: KV-cache bytes per token and in total, exact and paged, for a preset or an explicit architecture.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { bytesPerValue } from '../../../engines/capacity/dtypes.js'
import { kvCache } from '../../../engines/capacity/kv.js'
import {
  archOutput, CATALOGUE_SOURCES, checkTokens, dtypeFact, dtypeInput, dtypeOutput, kvDtype, modelFields, modelOutput,
  resolveModel, toGib,
} from './common.js'

const input = z
  .object({
    ...modelFields,
    tokens: z.number().int().min(1).describe('Tokens per sequence (prompt + generated)'),
    batch: z.number().int().min(1).default(1).describe('Concurrent sequences'),
    dtype: dtypeInput.default('fp16').describe('KV-cache format'),
    block_size: z.number().int().min(1).max(4096).default(16).describe('Tokens per page of a paged cache'),
    sliding_window: z
      .boolean()
      .default(false)
      .describe('Cap windowed layers at the model sliding window (only if the runtime honours it)'),
  })
  .strict()

const output = z.object({
  model: modelOutput,
  arch: archOutput,
  dtype: dtypeOutput,
  bytes_per_value: z.number(),
  formula: z.string(),
  bytes_per_token: z.number().int(),
  bytes_per_token_per_layer: z.number().int(),
  tokens: z.number().int(),
  batch: z.number().int(),
  per_sequence_bytes: z.number(),
  total_bytes: z.number(),
  total_gib: z.number(),
  groups: z.array(
    z.object({
      kind: z.enum(['full_attention', 'sliding_window']),
      layers: z.number().int(),
      tokens_cached: z.number().int(),
      bytes_per_sequence: z.number(),
      blocks_per_sequence: z.number().int(),
      block_bytes: z.number(),
    }),
  ),
  paged: z.object({
    block_size: z.number().int(),
    blocks: z.number().int(),
    allocated_bytes: z.number(),
    waste_bytes: z.number(),
    waste_fraction: z.number(),
  }),
  assumptions: z.array(z.string()),
})

export const kv = defineOperation({
  name: 'kv',
  method: 'POST',
  path: '/kv',
  lobe: 'capacity',
  caption: 'KV-cache size per token, in total and paged',
  summary:
    'KV-cache bytes = 2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes per value, for a preset of the ' +
    'catalogue or an explicit arch; also the paged footprint (block size, blocks, waste in each last page) and, on ' +
    'request, sliding-window caps. Refuses unknown presets (listing the known ones), weight-only dtypes (int4, nf4) and ' +
    'token or batch counts over the declared limits.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: CATALOGUE_SOURCES,
  checkLimits: (i) => checkTokens(i.tokens, i.batch),
  examples: [
    { model: 'llama-2-7b', tokens: 4096 },
    { model: 'llama-3.1-8b', tokens: 8192, batch: 8, dtype: 'fp8', block_size: 16 },
    {
      arch: { name: 'tiny GQA', hidden: 1024, layers: 8, heads: 16, kv_heads: 4, intermediate: 2816, vocab: 32000 },
      tokens: 1000,
      batch: 2,
    },
  ],
  handler: (i) => {
    const resolved = resolveModel(i)
    const dtype = kvDtype(i.dtype)
    const bytes = bytesPerValue(dtype)
    const r = kvCache({
      arch: resolved.arch,
      tokens: i.tokens,
      batch: i.batch,
      bytesPerValue: bytes,
      blockSize: i.block_size,
      applySlidingWindow: i.sliding_window,
    })
    const a = resolved.arch
    const assumptions = [
      `${dtype.name}: ${bytes} byte(s) per cached value`,
      `kv_heads ${a.kv_heads} (not the ${a.heads} query heads), head_dim ${a.head_dim}`,
      i.sliding_window && a.sliding_window !== null
        ? `sliding window applied: ${a.sliding_window_layers} layer(s) keep at most ${a.sliding_window} tokens`
        : 'every layer keeps every token (no sliding window applied)',
      `paged: ${i.block_size} tokens per block; a block spans every layer of its group`,
    ]
    if (a.experts > 1) assumptions.push('MoE experts do not change the KV cache')
    return {
      model: resolved.model,
      arch: a,
      dtype: dtypeFact(dtype),
      bytes_per_value: bytes,
      formula: `2 × ${a.layers} layers × ${a.kv_heads} kv_heads × ${a.head_dim} head_dim × ${bytes} B = ${r.bytes_per_token} B per token`,
      bytes_per_token: r.bytes_per_token,
      bytes_per_token_per_layer: r.bytes_per_token_per_layer,
      tokens: r.tokens,
      batch: r.batch,
      per_sequence_bytes: r.per_sequence_bytes,
      total_bytes: r.total_bytes,
      total_gib: toGib(r.total_bytes),
      groups: r.groups,
      paged: r.paged,
      assumptions,
    }
  },
})
