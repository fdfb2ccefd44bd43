// KV-cache size per layer group (full attention, sliding window), for the cache layout of a named runtime.
import type { Arch } from './models.js'

/**
 * transformers: DynamicCache, one tensor pair per layer; a sliding layer keeps its last window − 1 tokens, and MLA
 * layers keep decompressed per-head keys and values. vllm: paged blocks; a sliding layer holds window − 1 +
 * max_num_batched_tokens tokens plus one block, and MLA layers keep one compressed latent per token.
 */
export type KvRuntime = 'transformers' | 'vllm'

export const KV_RUNTIME_SOURCES: Readonly<Record<KvRuntime, string>> = {
  transformers:
    'huggingface/transformers src/transformers/cache_utils.py DynamicCache (one DynamicSlidingWindowLayer per ' +
    '"sliding_attention" layer of config.layer_types, else the window on every layer when config.sliding_window is ' +
    'set) and DynamicSlidingWindowLayer.update: "Only cache the last `self.sliding_window - 1` tokens"; DeepSeek-V2/V3 ' +
    'modelling caches key_states (qk_nope + qk_rope per head) and value_states (v_head_dim per head)',
  vllm:
    'vllm-project/vllm vllm/v1/kv_cache_interface.py: FullAttentionSpec cdiv(tokens, block_size) blocks; ' +
    'SlidingWindowSpec cdiv(min(sliding_window - 1 + max_num_batched_tokens, max_model_len), block_size) + 1 blocks; ' +
    'MLAAttentionSpec one kv_lora_rank + qk_rope_head_dim latent per token and layer',
}

export interface KvInput {
  arch: Arch
  tokens: number
  batch: number
  bytesPerValue: number
  /** Tokens per page of a paged cache (vLLM's default block size is 16). */
  blockSize: number
  /** The window the runtime applies to the model's sliding layers, or null to keep every token on every layer. */
  window: number | null
  runtime: KvRuntime
  /** vLLM's max_num_batched_tokens (sliding layers hold window − 1 plus one step's tokens). */
  maxNumBatchedTokens: number
}

export interface KvLayerGroup {
  kind: 'full_attention' | 'sliding_window'
  layers: number
  /** Tokens each sequence keeps in these layers. */
  tokens_cached: number
  bytes_per_sequence: number
  blocks_per_sequence: number
  /** One page: block_size tokens across the group's layers. */
  block_bytes: number
}

export interface KvResult {
  bytes_per_value: number
  /** Every layer, one token (what a full-attention cache grows by per token). */
  bytes_per_token: number
  bytes_per_token_per_layer: number
  /** Values cached per token and layer, and what they are. */
  values_per_token_per_layer: number
  layout: string
  tokens: number
  batch: number
  per_sequence_bytes: number
  total_bytes: number
  groups: KvLayerGroup[]
  paged: {
    block_size: number
    blocks: number
    allocated_bytes: number
    /** Unused slots in each sequence's last page. */
    waste_bytes: number
    waste_fraction: number
  }
}

/** Values one layer caches per token, and what they are, under a runtime's layout. */
export function kvValuesPerTokenPerLayer(a: Arch, runtime: KvRuntime): { values: number; layout: string } {
  const m = a.mla
  if (m && runtime === 'vllm') {
    return {
      values: m.kv_lora_rank + m.qk_rope_head_dim,
      layout: `MLA latent: kv_lora_rank ${m.kv_lora_rank} + qk_rope_head_dim ${m.qk_rope_head_dim}`,
    }
  }
  if (m) {
    const k = a.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)
    const v = a.heads * m.v_head_dim
    return {
      values: k + v,
      layout:
        `MLA decompressed: ${a.heads} heads × (qk_nope ${m.qk_nope_head_dim} + qk_rope ${m.qk_rope_head_dim}) keys + ` +
        `${a.heads} heads × v_head_dim ${m.v_head_dim} values`,
    }
  }
  return {
    values: 2 * a.kv_heads * a.head_dim,
    layout: `2 (K and V) × ${a.kv_heads} kv_heads × ${a.head_dim} head_dim`,
  }
}

export const kvBytesPerTokenPerLayer = (a: Arch, bytesPerValue: number, runtime: KvRuntime = 'transformers'): number =>
  kvValuesPerTokenPerLayer(a, runtime).values * bytesPerValue

export const kvBytesPerToken = (a: Arch, bytesPerValue: number, runtime: KvRuntime = 'transformers'): number =>
  a.layers * kvBytesPerTokenPerLayer(a, bytesPerValue, runtime)

/** Tokens a sliding layer holds for a sequence of `tokens`, and the pages that takes. */
function slidingHold(i: KvShape, window: number, tokens: number): { tokens: number; blocks: number } {
  if (i.runtime === 'vllm') {
    const held = Math.min(window - 1 + i.maxNumBatchedTokens, tokens)
    return { tokens: held, blocks: Math.ceil(held / i.blockSize) + (held < tokens ? 1 : 0) }
  }
  const held = Math.min(window - 1, tokens)
  return { tokens: held, blocks: Math.ceil(held / i.blockSize) }
}

export type KvShape = Omit<KvInput, 'tokens' | 'batch'>

/**
 * The cache's size as a function of tokens and batch, for one model and runtime: exact bytes and the paged
 * allocation. Allocation-free, so searches over the context can call it many times.
 */
export function kvSizer(i: KvShape): (tokens: number, batch: number) => { exact: number; paged: number } {
  const a = i.arch
  const perLayer = kvValuesPerTokenPerLayer(a, i.runtime).values * i.bytesPerValue
  const windowed = i.window === null ? 0 : a.sliding_window_layers
  const full = a.layers - windowed
  return (tokens, batch) => {
    let exact = full * perLayer * tokens
    let paged = full * perLayer * Math.ceil(tokens / i.blockSize) * i.blockSize
    if (windowed > 0) {
      const hold = slidingHold(i, i.window!, tokens)
      exact += windowed * perLayer * hold.tokens
      paged += windowed * perLayer * hold.blocks * i.blockSize
    }
    return { exact: exact * batch, paged: paged * batch }
  }
}

export function kvCache(i: KvInput): KvResult {
  const { arch: a, tokens, batch, blockSize } = i
  const { values, layout } = kvValuesPerTokenPerLayer(a, i.runtime)
  const perLayer = values * i.bytesPerValue
  const windowed = i.window === null ? 0 : a.sliding_window_layers
  const groups: KvLayerGroup[] = []
  if (a.layers - windowed > 0) {
    groups.push({
      kind: 'full_attention',
      layers: a.layers - windowed,
      tokens_cached: tokens,
      bytes_per_sequence: (a.layers - windowed) * perLayer * tokens,
      blocks_per_sequence: Math.ceil(tokens / blockSize),
      block_bytes: (a.layers - windowed) * perLayer * blockSize,
    })
  }
  if (windowed > 0) {
    const hold = slidingHold(i, i.window!, tokens)
    groups.push({
      kind: 'sliding_window',
      layers: windowed,
      tokens_cached: hold.tokens,
      bytes_per_sequence: windowed * perLayer * hold.tokens,
      blocks_per_sequence: hold.blocks,
      block_bytes: windowed * perLayer * blockSize,
    })
  }
  const size = kvSizer(i)(tokens, batch)
  return {
    bytes_per_value: i.bytesPerValue,
    bytes_per_token: a.layers * perLayer,
    bytes_per_token_per_layer: perLayer,
    values_per_token_per_layer: values,
    layout,
    tokens,
    batch,
    per_sequence_bytes: groups.reduce((s, g) => s + g.bytes_per_sequence, 0),
    total_bytes: size.exact,
    groups,
    paged: {
      block_size: blockSize,
      blocks: groups.reduce((s, g) => s + g.blocks_per_sequence, 0) * batch,
      allocated_bytes: size.paged,
      waste_bytes: size.paged - size.exact,
      waste_fraction: size.paged === 0 ? 0 : (size.paged - size.exact) / size.paged,
    },
  }
}
