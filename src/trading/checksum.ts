// Content digests of the trading surface: a dataset's bars, and the inputs of a run or request (canonical JSON).
import { createHash, type Hash } from 'node:crypto'
import type { Bars } from './engine/types.js'

/**
 * A dataset's checksum is the SHA-256 of one line per bar, `ts,open,high,low,close,volume\n`, numbers in their
 * shortest round-trip form. SQLite REAL keeps doubles exactly, so the digest recomputed from storage must match.
 */
export class BarsDigest {
  private readonly hash: Hash = createHash('sha256')

  add(ts: number, open: number, high: number, low: number, close: number, volume: number): void {
    this.hash.update(`${ts},${open},${high},${low},${close},${volume}\n`)
  }

  addAll(bars: Bars): this {
    for (let i = 0; i < bars.ts.length; i++) {
      this.add(bars.ts[i]!, bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!, bars.volume[i]!)
    }
    return this
  }

  hex(): string {
    return this.hash.digest('hex')
  }
}

export const barsSha256 = (bars: Bars): string => new BarsDigest().addAll(bars).hex()

/** JSON with object keys sorted at every level, so equal values digest equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = sortKeys(v)
    }
    return out
  }
  return value
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

export const digestOf = (value: unknown): string => sha256Hex(canonicalJson(value))
