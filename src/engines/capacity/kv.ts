// KV-cache size: 2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes, exact and paged.
import type { Arch } from './models.js'

export interface KvInput {
  arch: Arch
  tokens: number
  batch: number
  bytesPerValue: number
  /** Tokens per page of a paged cache (vLLM's default block size is 16). */
  blockSize: number
  /** Cap windowed layers at the sliding window (only right when the runtime honours windows). */
  applySlidingWindow: boolean
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
  /** Every layer, one token: 2 · layers · kv_heads · head_dim · bytes. */
  bytes_per_token: number
  bytes_per_token_per_layer: number
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

export const kvBytesPerTokenPerLayer = (a: Arch, bytesPerValue: number): number =>
  2 * a.kv_heads * a.head_dim * bytesPerValue

export const kvBytesPerToken = (a: Arch, bytesPerValue: number): number =>
  a.layers * kvBytesPerTokenPerLayer(a, bytesPerValue)

export function kvCache(input: KvInput): KvResult {
  const { arch: a, tokens, batch, bytesPerValue, blockSize } = input
  const perLayer = kvBytesPerTokenPerLayer(a, bytesPerValue)
  const windowed = input.applySlidingWindow && a.sliding_window !== null ? a.sliding_window_layers : 0
  const parts: Array<Pick<KvLayerGroup, 'kind' | 'layers' | 'tokens_cached'>> = []
  if (a.layers - windowed > 0) parts.push({ kind: 'full_attention', layers: a.layers - windowed, tokens_cached: tokens })
  if (windowed > 0) {
    parts.push({ kind: 'sliding_window', layers: windowed, tokens_cached: Math.min(tokens, a.sliding_window!) })
  }
  const groups: KvLayerGroup[] = parts.map((g) => ({
    ...g,
    bytes_per_sequence: g.layers * perLayer * g.tokens_cached,
    blocks_per_sequence: Math.ceil(g.tokens_cached / blockSize),
    block_bytes: g.layers * perLayer * blockSize,
  }))
  const perSequence = groups.reduce((s, g) => s + g.bytes_per_sequence, 0)
  const total = perSequence * batch
  const allocated = groups.reduce((s, g) => s + g.blocks_per_sequence * g.block_bytes, 0) * batch
  return {
    bytes_per_value: bytesPerValue,
    bytes_per_token: a.layers * perLayer,
    bytes_per_token_per_layer: perLayer,
    tokens,
    batch,
    per_sequence_bytes: perSequence,
    total_bytes: total,
    groups,
    paged: {
      block_size: blockSize,
      blocks: groups.reduce((s, g) => s + g.blocks_per_sequence, 0) * batch,
      allocated_bytes: allocated,
      waste_bytes: allocated - total,
      waste_fraction: allocated === 0 ? 0 : (allocated - total) / allocated,
    },
  }
}
