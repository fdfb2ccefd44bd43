// Numeric formats: storage bits per parameter, what quantisation adds on top, and what each format may be used for.
import type { ParamCount } from './params.js'

export const DTYPE_NAMES = ['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4', 'nf4'] as const
export type DtypeName = (typeof DTYPE_NAMES)[number]

export interface Dtype {
  name: DtypeName
  /** Bits of one stored value. */
  bits: number
  /** Extra bits per quantised parameter for scales/zero points, as counted here. */
  overhead_bits: number
  /** Weight-only quantisation: only Linear weights take this format; the rest stays 16-bit (bf16). */
  quantized: boolean
  /** Usable for KV-cache entries. */
  kv: boolean
  /** Usable for the trainable weights of full fine-tuning. */
  trainable: boolean
  statement: string
  source: string | null
}

export const DTYPES: Readonly<Record<DtypeName, Dtype>> = Object.freeze({
  fp32: {
    name: 'fp32', bits: 32, overhead_bits: 0, quantized: false, kv: true, trainable: true,
    statement: 'IEEE float32: 4 bytes per value.', source: null,
  },
  fp16: {
    name: 'fp16', bits: 16, overhead_bits: 0, quantized: false, kv: true, trainable: true,
    statement: 'IEEE float16: 2 bytes per value.', source: null,
  },
  bf16: {
    name: 'bf16', bits: 16, overhead_bits: 0, quantized: false, kv: true, trainable: true,
    statement: 'bfloat16: 2 bytes per value.', source: null,
  },
  fp8: {
    name: 'fp8', bits: 8, overhead_bits: 0, quantized: true, kv: true, trainable: false,
    statement:
      'FP8 (E4M3/E5M2): 1 byte per value. Per-tensor scales (one float32 per matrix) are not counted; ' +
      'as weights, only Linear layers are FP8 and the rest stays bf16.',
    source: null,
  },
  int8: {
    name: 'int8', bits: 8, overhead_bits: 0, quantized: true, kv: true, trainable: false,
    statement:
      'INT8: 1 byte per value. Per-row float32 scales (32/d_in bits per parameter, < 0.01 bit at d_in ≥ 4096) are ' +
      'not counted; as weights, only Linear layers are INT8 and the rest stays bf16.',
    source: null,
  },
  int4: {
    name: 'int4', bits: 4, overhead_bits: (16 + 4) / 128, quantized: true, kv: false, trainable: false,
    statement:
      'INT4 weight-only, GPTQ layout with group size 128: per group and output column one fp16 scale and one packed ' +
      '4-bit zero point, (16 + 4) / 128 = 0.15625 bit per parameter on top of 4 bits; the int32 g_idx per input ' +
      'feature (32/d_out bit per parameter) is not counted. Only Linear layers are quantised; the rest stays bf16.',
    source: 'AutoGPTQ/AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda.py @ 058fd80a (qweight, qzeros, scales, g_idx)',
  },
  nf4: {
    name: 'nf4', bits: 4, overhead_bits: 0.127, quantized: true, kv: false, trainable: false,
    statement:
      'NF4 (4-bit NormalFloat, bitsandbytes) with double quantisation: block size 64, absmax constants quantised to ' +
      '8 bits with a second float32 level per 256 blocks: 8/64 + 32/(64·256) = 0.127 bit per parameter on top of 4 ' +
      '(0.5 bit without double quantisation). Only Linear layers are quantised; the rest stays bf16.',
    source:
      'QLoRA, arXiv 2305.14314 (artidoro/qlora README @ 7f4e95a6); huggingface/peft ' +
      'docs/source/developer_guides/quantization.md @ 5d602fdb',
  },
})

/** What non-Linear parameters are stored in when the Linear weights are quantised. */
export const UNQUANTIZED_BITS = 16

export const bitsPerParam = (d: Dtype): number => d.bits + d.overhead_bits

export interface WeightMemory {
  dtype: DtypeName
  bytes: number
  /** Parameters stored in `dtype`. */
  params_in_dtype: number
  /** Parameters kept at 16 bits (non-Linear) because `dtype` is weight-only quantisation. */
  params_at_16_bit: number
  bits_per_param_in_dtype: number
}

/** Weight bytes of a model stored in a format; fractional bytes of packed formats round up. */
export function weightMemory(p: ParamCount, d: Dtype): WeightMemory {
  const inDtype = d.quantized ? p.linear : p.total
  const at16 = d.quantized ? p.non_linear : 0
  const bits = bitsPerParam(d)
  return {
    dtype: d.name,
    bytes: Math.ceil((inDtype * bits + at16 * UNQUANTIZED_BITS) / 8),
    params_in_dtype: inDtype,
    params_at_16_bit: at16,
    bits_per_param_in_dtype: bits,
  }
}

/** Bytes of one value of a format, for KV caches (formats without overhead only). */
export const bytesPerValue = (d: Dtype): number => d.bits / 8
