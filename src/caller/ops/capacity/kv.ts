// POST /kv: KV-cache bytes per token and in total, exact and paged, for a preset or an explicit architecture.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { bytesPerValue } from '../../../engines/capacity/dtypes.js'
import { kvCache, KV_RUNTIME_SOURCES } from '../../../engines/capacity/kv.js'
import {
  archOutput, CATALOGUE_SOURCES, checkTokens, dtypeFact, dtypeInput, dtypeOutput, effectiveWindow, kvDtype, modelFields,
  modelOutput, resolveModel, slidingWindowInput, toGib,
} from './common.js'

export const runtimeInput = z
  .enum(['transformers', 'vllm'])
  .describe("Whose cache layout: transformers' DynamicCache (default) or vLLM's paged blocks")

const input = z
  .object({
    ...modelFields,
    tokens: z.number().int().min(1).describe('Tokens per sequence (prompt + generated)'),
    batch: z.number().int().min(1).default(1).describe('Concurrent sequences'),
    dtype: dtypeInput.default('fp16').describe('KV-cache format'),
    block_size: z.number().int().min(1).max(4096).default(16).describe('Tokens per page of a paged cache'),
    sliding_window: slidingWindowInput.default(true),
    runtime: runtimeInput.default('transformers'),
    max_num_batched_tokens: z
      .number()
      .int()
      .min(1)
      .max(1_048_576)
      .default(8192)
      .describe("vllm: tokens per scheduler step (sliding layers hold window − 1 plus these)"),
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
  values_per_token_per_layer: z.number().int(),
  layout: z.string(),
  runtime: z.enum(['transformers', 'vllm']),
  window_applied: z.number().int().nullable(),
  source: z.string(),
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
    'KV-cache bytes = 2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes per value (MLA: the ' +
    'compressed latent under vLLM, decompressed heads under transformers), for a preset, an explicit arch or a posted ' +
    "config.json. The model's own sliding windows apply by default, per layer (Gemma 2 alternates), as the runtime " +
    'keeps them: transformers holds window − 1 tokens, vLLM window − 1 + one step. Also the paged footprint (block size, ' +
    'blocks, waste in each last page). Refuses unknown presets (listing the known ones), unreadable configs (naming the ' +
    'key), weight-only dtypes (int4, nf4) and token or batch counts over the declared limits.',
  input,
  output,
  provenance: ['computed', 'declared'],
  sources: CATALOGUE_SOURCES,
  checkLimits: (i) => checkTokens(i.tokens, i.batch),
  examples: [
    { model: 'llama-2-7b', tokens: 4096 },
    { model: 'llama-3.1-8b', tokens: 8192, batch: 8, dtype: 'fp8', block_size: 16 },
    { model: 'gemma-2-9b', tokens: 6144 },
    {
      config: {
        model_type: 'mistral', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8,
        intermediate_size: 14336, vocab_size: 32000, max_position_embeddings: 32768, sliding_window: 4096,
      },
      tokens: 6144,
    },
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
    const a = resolved.arch
    const window = effectiveWindow(a, i.sliding_window)
    const r = kvCache({
      arch: a,
      tokens: i.tokens,
      batch: i.batch,
      bytesPerValue: bytes,
      blockSize: i.block_size,
      window,
      runtime: i.runtime,
      maxNumBatchedTokens: i.max_num_batched_tokens,
    })
    const sliding = r.groups.find((g) => g.kind === 'sliding_window')
    const assumptions = [
      `${dtype.name}: ${bytes} byte(s) per cached value`,
      a.mla ? `MLA: ${r.layout} per token and layer` : `kv_heads ${a.kv_heads} (not the ${a.heads} query heads), head_dim ${a.head_dim}`,
      window === null
        ? a.sliding_window_layers > 0
          ? `every layer keeps every token: the model's window (${a.sliding_window}) is switched off by sliding_window: false`
          : 'every layer keeps every token (the model declares no sliding window)'
        : `window ${window} on ${a.sliding_window_layers} of ${a.layers} layer(s), as config.layer_types; ${i.runtime} keeps ` +
          `${sliding?.tokens_cached ?? 0} token(s) per sequence in them` +
          (i.runtime === 'transformers' ? ' (the last window − 1; a decode step briefly holds one more)' : ' (window − 1 + max_num_batched_tokens, plus one block)'),
      `paged: ${i.block_size} tokens per block; a block spans every layer of its group`,
      ...resolved.notes,
    ]
    if (a.experts > 1) assumptions.push('MoE experts do not change the KV cache')
    return {
      model: resolved.model,
      arch: a,
      dtype: dtypeFact(dtype),
      bytes_per_value: bytes,
      formula: `${r.layout} × ${a.layers} layers × ${bytes} B = ${r.bytes_per_token} B per token (full attention)`,
      bytes_per_token: r.bytes_per_token,
      bytes_per_token_per_layer: r.bytes_per_token_per_layer,
      values_per_token_per_layer: r.values_per_token_per_layer,
      layout: r.layout,
      runtime: i.runtime,
      window_applied: window,
      source: KV_RUNTIME_SOURCES[i.runtime],
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
