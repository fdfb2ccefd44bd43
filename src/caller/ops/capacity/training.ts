// Fine-tuning choices shared by /fit (training) and /peft: method, base dtype, accounting and LoRA targets.
import { z } from 'zod'
import { Refusal } from '../../../http/refusal.js'
import { DTYPES, weightMemory, type Dtype, type DtypeName, type WeightMemory } from '../../../engines/capacity/dtypes.js'
import {
  ACCOUNTINGS, fineTuneMemory, type Accounting, type AccountingName, type FineTuneMemory, type FineTuneMethod,
} from '../../../engines/capacity/peft.js'
import { loraForLayout, type Follows, type LayoutModule } from '../../../engines/capacity/lora-layout.js'
import { CAPACITY_LIMITS, resolveLoraTargets, type ResolvedModel, type ResolvedTargets } from './common.js'

export const methodInput = z.enum(['full', 'lora', 'qlora'])
export const accountingInput = z
  .enum(['zero_16', 'hf_18', 'fp32_16'])
  .describe('Bytes per trainable parameter: zero_16 (2+2+12), hf_18 (6+4+8) or fp32_16 (4+4+8)')

export const accountingOutput = z.object({
  name: z.enum(['zero_16', 'hf_18', 'fp32_16']),
  weights: z.number(),
  gradients: z.number(),
  optimizer: z.number(),
  total: z.number(),
  statement: z.string(),
  source: z.string(),
})

const BASE_DTYPES: Record<FineTuneMethod, { allowed: DtypeName[]; fallback: DtypeName; why: string }> = {
  full: { allowed: ['fp32', 'fp16', 'bf16'], fallback: 'bf16', why: 'full fine-tuning trains every weight in 16 or 32 bits; use qlora for a quantised base' },
  lora: { allowed: ['fp32', 'fp16', 'bf16', 'fp8', 'int8'], fallback: 'bf16', why: 'a 4-bit base is QLoRA: use method qlora' },
  qlora: { allowed: ['nf4', 'int4'], fallback: 'nf4', why: 'QLoRA trains adapters on a 4-bit (nf4 or int4) base; use lora otherwise' },
}

export interface FineTuneChoice {
  method: FineTuneMethod
  r: number
  targetModules: 'default' | 'all-linear' | string[]
  dtype: DtypeName | undefined
  accounting: AccountingName | undefined
  follows: Follows
}

export interface FineTunePlan {
  memory: FineTuneMemory
  baseDtype: Dtype
  base: WeightMemory | null
  accounting: Accounting
  targets: ResolvedTargets | null
  lora: { modules: LayoutModule[]; trainable: number; notes: string[] } | null
  r: number | null
  assumptions: string[]
}

export function fineTune(resolved: ResolvedModel, c: FineTuneChoice): FineTunePlan {
  const rule = BASE_DTYPES[c.method]
  const dtypeName = c.dtype ?? rule.fallback
  if (!rule.allowed.includes(dtypeName)) {
    throw new Refusal('invalid_input', `dtype ${dtypeName} does not suit method ${c.method}: ${rule.why}`, {
      issues: [{ path: 'dtype', message: `allowed for ${c.method}: ${rule.allowed.join(', ')}` }],
      hints: { allowed_dtypes: rule.allowed },
    })
  }
  if (c.r > CAPACITY_LIMITS.max_lora_rank) {
    throw new Refusal('over_limit', `r ${c.r} is over the limit of ${CAPACITY_LIMITS.max_lora_rank}`)
  }
  const baseDtype = DTYPES[dtypeName]
  const accounting =
    ACCOUNTINGS[c.accounting ?? (c.method === 'full' ? (dtypeName === 'fp32' ? 'fp32_16' : 'zero_16') : 'fp32_16')]
  const total = resolved.params.total
  if (c.method === 'full') {
    return {
      memory: fineTuneMemory('full', total, 0, 0, accounting),
      baseDtype,
      base: null,
      accounting,
      targets: null,
      lora: null,
      r: null,
      assumptions: [
        `full fine-tuning: all ${total.toLocaleString('en-US')} parameters trainable; ${accounting.statement}`,
        'optimizer: Adam/AdamW with two moments per parameter',
      ],
    }
  }
  const targets = resolveLoraTargets(resolved, c.targetModules)
  const lora = loraForLayout(resolved.arch, resolved.model_type, c.r, targets.modules, c.follows, c.targetModules === 'default')
  if (!lora.ok) {
    throw new Refusal('invalid_input', lora.reason, {
      issues: [{ path: lora.field, message: lora.reason }],
      hints: { follows: ['5.x', '4.x'] },
    })
  }
  const base = weightMemory(resolved.params, baseDtype)
  return {
    memory: fineTuneMemory(c.method, total, lora.trainable, base.bytes, accounting),
    baseDtype,
    base,
    accounting,
    targets,
    lora,
    r: c.r,
    assumptions: [
      `${c.method}: frozen base in ${baseDtype.name} — ${baseDtype.statement}`,
      `LoRA: r·(d_in + d_out) trainable parameters per adapted Linear (A: r×d_in, B: d_out×r, no bias), r = ${c.r}, ` +
        `targets ${targets.modules.join(', ')} (${targets.source}); layout of transformers ${c.follows.transformers}, peft ${c.follows.peft}`,
      ...lora.notes,
      `trainable parameters: ${accounting.statement}`,
      'optimizer: Adam/AdamW with two moments per trainable parameter; the frozen base has no gradients or states',
    ],
  }
}
