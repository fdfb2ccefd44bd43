// Serving many LoRA adapters on one base model: bytes per adapter, total, and how many fit a memory budget.

export interface AdapterSpec {
  name: string
  r: number
  trainable_params: number
  count: number
}

export interface AdapterLine extends AdapterSpec {
  bytes_each: number
  bytes: number
}

export interface AdapterPlan {
  bytes_per_value: number
  adapters: AdapterLine[]
  total_adapters: number
  total_bytes: number
  budget_bytes: number | null
  fits_budget: boolean | null
  /** Per adapter kind: how many copies of it alone the budget holds. */
  max_in_budget: Array<{ name: string; max: number }> | null
}

export function adapterPlan(specs: readonly AdapterSpec[], bytesPerValue: number, budgetBytes: number | null): AdapterPlan {
  const adapters = specs.map((s) => {
    const each = s.trainable_params * bytesPerValue
    return { ...s, bytes_each: each, bytes: each * s.count }
  })
  const total = adapters.reduce((sum, a) => sum + a.bytes, 0)
  return {
    bytes_per_value: bytesPerValue,
    adapters,
    total_adapters: adapters.reduce((sum, a) => sum + a.count, 0),
    total_bytes: total,
    budget_bytes: budgetBytes,
    fits_budget: budgetBytes === null ? null : total <= budgetBytes,
    max_in_budget:
      budgetBytes === null
        ? null
        : adapters.map((a) => ({ name: a.name, max: a.bytes_each === 0 ? 0 : Math.floor(budgetBytes / a.bytes_each) })),
  }
}
