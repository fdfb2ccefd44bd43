// Weight bytes in every format: plain floats, weight-only quantisation (bitsandbytes, GPTQ, AWQ) and GGUF file types.
import { DTYPES, DTYPE_NAMES, weightMemory, type DtypeName } from './dtypes.js'
import type { Arch } from './models.js'
import { countParams } from './params.js'
import { tensorLayout, tensorParams, type WeightTensor } from './tensors.js'

export const GROUPED_FORMATS = ['gptq-int4', 'gptq-int8', 'awq-int4'] as const
export const GGUF_FORMATS = ['q8_0', 'q6_k', 'q5_k_m', 'q4_k_m', 'q4_0'] as const
export const WEIGHT_FORMATS = [...DTYPE_NAMES, ...GROUPED_FORMATS, ...GGUF_FORMATS] as const
export type WeightFormat = (typeof WEIGHT_FORMATS)[number]
type GroupedFormat = (typeof GROUPED_FORMATS)[number]
type GgufFormat = (typeof GGUF_FORMATS)[number]

export const isDtypeName = (f: WeightFormat): f is DtypeName => (DTYPE_NAMES as readonly string[]).includes(f)
const isGrouped = (f: WeightFormat): f is GroupedFormat => (GROUPED_FORMATS as readonly string[]).includes(f)

/** ggml block layouts: bytes per block of `block` weights (ggml-common.h block_q*_K / block_q*_0 structs). */
const GGML_TYPES = {
  F32: { block: 1, bytes: 4 },
  F16: { block: 1, bytes: 2 },
  Q8_0: { block: 32, bytes: 34 },
  Q6_K: { block: 256, bytes: 210 },
  Q5_1: { block: 32, bytes: 24 },
  Q5_K: { block: 256, bytes: 176 },
  Q5_0: { block: 32, bytes: 22 },
  Q4_K: { block: 256, bytes: 144 },
  Q4_0: { block: 32, bytes: 18 },
} as const
type GgmlType = keyof typeof GGML_TYPES

export const GGML_SOURCE =
  'ggml-org/llama.cpp ggml/src/ggml-common.h block layouts (Q8_0 34 B / 32, Q4_0 18 B / 32, Q5_0 22 B / 32, Q5_1 24 B / 32, ' +
  'Q4_K 144 B / 256, Q5_K 176 B / 256, Q6_K 210 B / 256 weights) and src/llama-quant.cpp llama_tensor_get_type ' +
  '(output and tied token_embd → Q6_K unless the row is not a multiple of the block; attn_v and ffn_down → Q6_K on ' +
  'use_more_bits layers for Q4_K_M/Q5_K_M; 8-expert models: attn_k/attn_v → Q8_0, attn_output → Q5_K for Q4_K_M; 70B: ' +
  'attn_v Q4_K → Q5_K; rows that do not fill a block fall back Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0); 1-D tensors and ' +
  'the MoE router stay F32'

export const GROUPED_SOURCE =
  'AutoGPTQ/AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda.py @ 058fd80a (qweight, qzeros packed to the bit width, ' +
  'fp16 scales per group and output column, int32 g_idx per input feature); casper-hansen/AutoAWQ WQLinear_GEMM ' +
  '(qweight, qzeros, fp16 scales; no g_idx)'

/** llama.cpp's use_more_bits: the first and last eighth of the layers and every third one between. */
export const useMoreBits = (i: number, n: number): boolean =>
  i < Math.floor(n / 8) || i >= Math.floor((7 * n) / 8) || (i - Math.floor(n / 8)) % 3 === 2

const is70b = (a: Arch) => a.layers === 80 && a.kv_heads < a.heads

/** The ggml type llama.cpp's quantiser picks for one tensor of a GGUF file type. */
export function ggufTensorType(a: Arch, f: GgufFormat, t: WeightTensor, layer = t.layer ?? 0): GgmlType {
  if (t.role === 'vector' || t.role === 'ffn_gate_inp') return 'F32'
  const base: GgmlType = f === 'q8_0' ? 'Q8_0' : f === 'q6_k' ? 'Q6_K' : f === 'q5_k_m' ? 'Q5_K' : f === 'q4_k_m' ? 'Q4_K' : 'Q4_0'
  const km = f === 'q4_k_m' || f === 'q5_k_m'
  let type: GgmlType = base
  const isOutput = t.role === 'output' || (t.role === 'token_embd' && a.tie_embeddings)
  if (isOutput) {
    if (t.d_in % GGML_TYPES[base].block !== 0) type = 'Q8_0'
    else if (base !== 'Q8_0') type = 'Q6_K'
  } else if (t.role === 'attn_v' || t.role === 'attn_qkv' || t.role === 'attn_kv_b') {
    if (km && useMoreBits(layer, a.layers)) type = 'Q6_K'
    if (is70b(a) && type === 'Q4_K') type = 'Q5_K'
    if (a.experts === 8) type = 'Q8_0'
  } else if (t.role === 'attn_k') {
    if (a.experts === 8) type = 'Q8_0'
  } else if (t.role === 'ffn_down') {
    if (km && useMoreBits(layer, a.layers)) type = 'Q6_K'
  } else if (t.role === 'attn_output') {
    if (a.experts === 8 && f === 'q4_k_m') type = 'Q5_K'
  }
  if (t.d_in % GGML_TYPES[type].block !== 0) {
    const fallback: Partial<Record<GgmlType, GgmlType>> = { Q4_K: 'Q5_0', Q5_K: 'Q5_1', Q6_K: 'Q8_0' }
    type = fallback[type] ?? type
    if (t.d_in % GGML_TYPES[type].block !== 0) type = 'F16'
  }
  return type
}

const ggmlBytes = (t: WeightTensor, type: GgmlType): number =>
  (tensorParams(t) / GGML_TYPES[type].block) * GGML_TYPES[type].bytes

/** Bytes of one grouped-quantised Linear (GPTQ/AWQ layout) of d_in → d_out. */
function groupedLinearBytes(f: GroupedFormat, d_in: number, d_out: number, groupSize: number): number {
  const bits = f === 'gptq-int8' ? 8 : 4
  const groups = Math.ceil(d_in / (groupSize === -1 ? d_in : groupSize))
  const qweight = (d_in * d_out * bits) / 8
  const scales = groups * d_out * 2
  const qzeros = (groups * d_out * bits) / 8
  const gIdx = f === 'awq-int4' ? 0 : d_in * 4
  return qweight + scales + qzeros + gIdx
}

export interface WeightBytes {
  format: WeightFormat
  bytes: number
  /** bytes · 8 / parameters, over the whole model. */
  bits_per_weight: number
  /** Parameters per storage type, and their bytes. */
  by_type: Array<{ type: string; params: number; bytes: number }>
  statement: string
  source: string | null
}

const add = (m: Map<string, { params: number; bytes: number }>, type: string, params: number, bytes: number) => {
  const e = m.get(type) ?? { params: 0, bytes: 0 }
  m.set(type, { params: e.params + params, bytes: e.bytes + bytes })
}

const cache = new WeakMap<Arch, Map<string, WeightBytes>>()

/** Weight bytes of a model in a format; `groupSize` applies to GPTQ/AWQ (−1 = one group per input row). */
export function weightBytes(a: Arch, f: WeightFormat, groupSize = 128): WeightBytes {
  const key = `${f}/${groupSize}`
  const known = cache.get(a)?.get(key)
  if (known) return known
  const w = computeWeightBytes(a, f, groupSize)
  if (!cache.has(a)) cache.set(a, new Map())
  cache.get(a)!.set(key, w)
  return w
}

function computeWeightBytes(a: Arch, f: WeightFormat, groupSize: number): WeightBytes {
  const total = countParams(a).total
  const types = new Map<string, { params: number; bytes: number }>()
  const layout = tensorLayout(a)
  /** Each tensor with how many layers hold it: globals once, a run's tensors once per layer of the run. */
  const each = (visit: (t: WeightTensor, layers: number) => void) => {
    for (const t of layout.global) visit(t, 1)
    for (const r of layout.runs) for (const t of r.tensors) visit(t, r.to - r.from)
  }
  let statement: string
  let source: string | null
  if (isDtypeName(f)) {
    const d = DTYPES[f]
    const w = weightMemory(countParams(a), d)
    add(types, f, w.params_in_dtype, w.bytes - (w.params_at_16_bit * 2))
    if (w.params_at_16_bit) add(types, 'bf16', w.params_at_16_bit, w.params_at_16_bit * 2)
    statement = d.statement
    source = d.source
  } else if (isGrouped(f)) {
    each((t, layers) => {
      const params = tensorParams(t) * layers
      const quantised = t.role !== 'vector' && t.role !== 'token_embd' && t.role !== 'output' && t.role !== 'ffn_gate_inp'
      if (quantised) add(types, f, params, layers * t.copies * groupedLinearBytes(f, t.d_in, t.d_out, groupSize))
      else add(types, 'bf16', params, params * 2)
    })
    const bits = f === 'gptq-int8' ? 8 : 4
    const g = groupSize === -1 ? 'one group per input row' : `group size ${groupSize}`
    statement =
      `${f === 'awq-int4' ? 'AWQ' : 'GPTQ'} ${bits}-bit, ${g}: per Linear of the blocks ${bits}-bit weights, an fp16 scale and ` +
      `a ${bits}-bit zero point per group and output column` + (f === 'awq-int4' ? '' : ', an int32 g_idx per input feature') +
      '; embeddings, lm_head, norms and the MoE router stay bf16'
    source = GROUPED_SOURCE
  } else {
    for (const t of layout.global) {
      const type = ggufTensorType(a, f, t)
      add(types, type, tensorParams(t), ggmlBytes(t, type))
    }
    // A tensor's type depends on its layer only through use_more_bits: split each run into those layers and the rest.
    for (const r of layout.runs) {
      let more = 0
      let first = -1
      let other = -1
      for (let l = r.from; l < r.to; l++) {
        if (useMoreBits(l, a.layers)) {
          more++
          if (first < 0) first = l
        } else if (other < 0) other = l
      }
      for (const t of r.tensors) {
        if (first >= 0) add(types, ggufTensorType(a, f, t, first), tensorParams(t) * more, ggmlBytes(t, ggufTensorType(a, f, t, first)) * more)
        const rest = r.to - r.from - more
        if (other >= 0) add(types, ggufTensorType(a, f, t, other), tensorParams(t) * rest, ggmlBytes(t, ggufTensorType(a, f, t, other)) * rest)
      }
    }
    statement = `GGUF ${f.toUpperCase()}: each tensor in the ggml type llama.cpp's quantiser chooses for it (see by_type)`
    source = GGML_SOURCE
  }
  const by_type = [...types.entries()].map(([type, e]) => ({ type, params: e.params, bytes: Math.ceil(e.bytes) }))
  const bytes = by_type.reduce((s, e) => s + e.bytes, 0)
  return { format: f, bytes, bits_per_weight: (bytes * 8) / total, by_type, statement, source }
}
