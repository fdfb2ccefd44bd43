// The format of test/fixtures/capacity/h100-measurements.json: what scripts/capacity/measure.py writes, the tests read.

export interface MeasuredFitEdge {
  model: string
  context: number
  dtype: string
  /** Batches that ran (prefill and one decode step) without running out of memory. */
  runs: number[]
  out_of_memory: number[]
  /** The largest batch /fit allowed before issue #29 (null in a fresh measurement). */
  api_before: number | null
  /** Prefill tokens per sequence per forward in the measuring harness, when known. */
  prefill_chunk?: number
}

export interface CapacityMeasurements {
  source: string
  note: string
  format: 1
  environment: { gpu: string; torch: string; transformers: string; peft: string; cuda: string }
  device: { total_bytes: number; cuda_context_mib: number }
  fit_edges: MeasuredFitEdge[]
  kv_windows: Array<{ model: string; tokens: number; windowless_over_real: number; tokens_kept_per_layer?: number }>
  peft_trainable: Array<{
    model: string
    r: number
    target_modules: string | string[]
    trainable_millions?: number
    trainable?: number
    refused?: boolean
    reason?: string
    api_before_millions: number | null
  }>
  training_state: Array<{
    model: string
    method: string
    r: number
    target_modules: string
    optimizer: string
    after_one_step_bytes_per_trainable: number
    after_one_step_extra_mib: number
    kept_after_one_step_bytes?: number
    trainable?: number
    api_before_error: number | null
  }>
}
