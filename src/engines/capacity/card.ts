// The capacity card: one model on declared devices — parameters, weights per dtype, KV, max context, LoRA sizes.
import { DTYPE_NAMES, DTYPES, bytesPerValue, weightMemory, type DtypeName } from './dtypes.js'
import { GiB, inferencePlan, type DeviceSpec, type ServingModel } from './fit.js'
import { kvBytesPerToken } from './kv.js'
import type { Arch } from './models.js'
import { countParams, type ParamCount } from './params.js'
import type { ModuleName } from './peft.js'

export interface CardInput {
  model: { id: string | null; name: string; hf_repo: string | null; sources: string[] } & Record<string, unknown>
  arch: Arch
  devices: DeviceSpec
  /** The device as answered (count, memory, preset). */
  devicesFact: { count: number; memory_gib: number } & Record<string, unknown>
  window: number | null
  serving: ServingModel
  marginFraction: number
  /** Counts trainable parameters for a module set and rank (the library layout decides), or null when refused. */
  countLora: (modules: ModuleName[], r: number) => number | null
  /** Weight formats for which the max context is worked out. */
  contextDtypes: DtypeName[]
  kvDtype: DtypeName
  /** Declared overhead as % of the weights, or null for none. */
  overheadPercent: number | null
  reservedBytesPerDevice: number
  ranks: number[]
  /** Named module sets to size LoRA adapters for (e.g. PEFT's default for the model type, all-linear). */
  loraTargets: Array<{ name: string; modules: ModuleName[] }>
  adapterDtype: DtypeName
}

export interface CapacityCard {
  model: CardInput['model']
  arch: Arch
  parameters: ParamCount
  weights: Array<{ dtype: DtypeName; bytes: number; gib: number }>
  kv_per_token: Array<{ dtype: DtypeName; bytes: number }>
  devices: CardInput['devicesFact']
  tensor_parallel: number
  max_context: Array<{
    weights_dtype: DtypeName
    kv_dtype: DtypeName
    batch: 1
    fits_weights: boolean
    max_context_tokens: number | null
    limited_by: 'memory' | 'max_context' | null
  }>
  lora: Array<{ targets: string; modules: ModuleName[]; r: number; trainable_params: number; adapter_bytes: number }>
  assumptions: string[]
}

export function capacityCard(i: CardInput): CapacityCard {
  const params = countParams(i.arch)
  const kvValue = bytesPerValue(DTYPES[i.kvDtype])
  const tp = i.devices.count
  const maxContext = i.contextDtypes.map((dtype) => {
    const weights = weightMemory(params, DTYPES[dtype]).bytes
    const fit = inferencePlan({
      arch: i.arch,
      weightBytes: weights,
      kvBytesPerValue: kvValue,
      context: 1,
      batch: 1,
      devices: i.devices,
      tensorParallel: tp,
      pipelineParallel: 1,
      window: i.window,
      serving: i.serving,
      marginFraction: i.marginFraction,
      declared: [
        ...(i.reservedBytesPerDevice > 0 ? [{ name: 'reserved', per_device_bytes: i.reservedBytesPerDevice, note: 'declared' }] : []),
        ...(i.overheadPercent !== null ? [{ name: 'declared_overhead', per_device_bytes: Math.ceil((weights * i.overheadPercent) / 100 / tp), note: 'declared' }] : []),
      ],
    })
    const fitsWeights = fit.max_batch_at_context > 0
    return {
      weights_dtype: dtype,
      kv_dtype: i.kvDtype,
      batch: 1 as const,
      fits_weights: fitsWeights,
      max_context_tokens: fitsWeights ? fit.max_context_at_batch : 0,
      limited_by: fitsWeights ? fit.max_context_limited_by : ('memory' as const),
    }
  })
  const lora = i.loraTargets.flatMap((t) =>
    i.ranks.flatMap((r) => {
      const trainable = i.countLora(t.modules, r)
      if (trainable === null) return []
      return [{
        targets: t.name,
        modules: t.modules,
        r,
        trainable_params: trainable,
        adapter_bytes: trainable * bytesPerValue(DTYPES[i.adapterDtype]),
      }]
    }),
  )
  return {
    model: i.model,
    arch: i.arch,
    parameters: params,
    weights: DTYPE_NAMES.map((dtype) => {
      const bytes = weightMemory(params, DTYPES[dtype]).bytes
      return { dtype, bytes, gib: bytes / GiB }
    }),
    kv_per_token: DTYPE_NAMES.filter((d) => DTYPES[d].kv).map((dtype) => ({
      dtype,
      bytes: kvBytesPerToken(i.arch, bytesPerValue(DTYPES[dtype])),
    })),
    devices: i.devicesFact,
    tensor_parallel: tp,
    max_context: maxContext,
    lora,
    assumptions: [
      `GiB = 2^30 bytes; weights of quantised formats keep non-Linear parameters in bf16`,
      `max context: batch 1, ${i.kvDtype} KV cache, ${i.window === null ? 'no sliding window' : `the model's window ${i.window} on its sliding layers`}, ` +
        `the /fit ${i.serving.runtime} serving model (CUDA context, cuBLAS workspace, prefill activations, ` +
        `${(i.marginFraction * 100).toFixed(2)}% margin)` + (i.overheadPercent !== null ? ` + ${i.overheadPercent}% of the weights as declared overhead` : '') +
        `, tensor parallel over ${tp} device(s)`,
      `LoRA adapters stored in ${i.adapterDtype}: r·(d_in + d_out) parameters per adapted Linear`,
    ],
  }
}

const int = (n: number) => n.toLocaleString('en-US')
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

export function cardMarkdown(c: CapacityCard): string {
  const a = c.arch
  const p = c.parameters
  const lines = [
    `# Capacity card: ${c.model.name}`,
    '',
    c.model.hf_repo ? `Config: \`${c.model.hf_repo}\`` : 'Config: explicit architecture',
    '',
    '## Architecture',
    '',
    '| hidden | layers | heads | kv heads | head dim | intermediate | vocab | tied | experts | max context |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${a.hidden} | ${a.layers} | ${a.heads} | ${a.kv_heads} | ${a.head_dim} | ${a.intermediate} | ${a.vocab} | ` +
      `${a.tie_embeddings ? 'yes' : 'no'} | ${a.experts > 1 ? `${a.experts} (top-${a.experts_per_token})` : 'dense'} | ` +
      `${a.max_context ?? 'n/a'} |`,
    '',
    '## Parameters',
    '',
    `- total: ${int(p.total)}`,
    `- active per token: ${int(p.active)}`,
    `- non-embedding: ${int(p.non_embedding)}`,
    '',
    '## Weight memory',
    '',
    '| dtype | bytes | GiB |',
    '|---|---|---|',
    ...c.weights.map((w) => `| ${w.dtype} | ${int(w.bytes)} | ${w.gib.toFixed(2)} |`),
    '',
    '## KV cache per token',
    '',
    '| dtype | bytes | KiB |',
    '|---|---|---|',
    ...c.kv_per_token.map((k) => `| ${k.dtype} | ${int(k.bytes)} | ${(k.bytes / 1024).toFixed(1)} |`),
    '',
    `## Max context on ${c.devices.count} × ${c.devices.memory_gib} GiB (tensor parallel ${c.tensor_parallel}, batch 1)`,
    '',
    '| weights | KV | max context (tokens) | limited by |',
    '|---|---|---|---|',
    ...c.max_context.map(
      (m) =>
        `| ${m.weights_dtype} | ${m.kv_dtype} | ${m.fits_weights ? (m.max_context_tokens === null ? 'unbounded' : int(m.max_context_tokens)) : 'does not fit'} | ` +
        `${m.fits_weights ? (m.limited_by ?? '—') : 'weights'} |`,
    ),
    '',
    '## LoRA adapters',
    '',
    '| targets | r | trainable params | adapter size |',
    '|---|---|---|---|',
    ...c.lora.map((l) => `| ${l.targets} | ${l.r} | ${int(l.trainable_params)} | ${mib(l.adapter_bytes)} |`),
    '',
    '## Assumptions',
    '',
    ...c.assumptions.map((s) => `- ${s}`),
    '',
    ...(c.model.sources.length ? ['## Sources', '', ...c.model.sources.map((s) => `- ${s}`), ''] : []),
  ]
  return lines.join('\n')
}
