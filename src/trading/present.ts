// Turning engine results into JSON answers: finite numbers or null, ISO times.
import type { Stats } from '../engines/trading/types.js'
import type { Annualization } from '../engines/trading/index.js'

/** Non-finite numbers (a ratio over zero, an empty distribution) become null, at any depth. */
export function finite<T>(value: T): T {
  if (typeof value === 'number') return (Number.isFinite(value) ? value : null) as T
  if (Array.isArray(value)) return value.map(finite) as T
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = finite(v)
    return out as T
  }
  return value
}

export const iso = (ms: number): string => new Date(ms).toISOString()

export type StatsView = Omit<Stats, 'start' | 'end'> & { start: string; end: string; annualization?: Annualization }

/** Statistics as answered: ISO times, finite numbers or null, and how the annualised ones were annualised. */
export function statsView(stats: Stats, annualization?: Annualization | null): StatsView {
  return { ...finite(stats), start: iso(stats.start), end: iso(stats.end), ...(annualization ? { annualization } : {}) }
}
