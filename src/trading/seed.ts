// First-start seeding: synthetic datasets from the engine's seeded GBM generator, labelled as synthetic with their seed.
import { qualityOf } from '../engines/trading/quality.js'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../engines/trading/index.js'
import { DEFAULT_REGIMES, type SyntheticSpec } from '../engines/trading/synthetic.js'
import { barsSha256 } from './checksum.js'
import type { Sql } from '../store/sql.js'
import { createTradingRepository } from './repository.js'

/** `full`: the SPEC §3.1 datasets (10+ years daily, 100k intraday bars, one hourly); `small`: short versions for tests. */
export type SeedLevel = 'full' | 'small' | 'none'

interface SeedDataset {
  symbol: string
  timeframe: string
  spec: SyntheticSpec
}

const HOUR_MS = 3_600_000

const HOURLY: SeedDataset = {
  symbol: 'SYN-1H',
  timeframe: '1h',
  spec: { seed: 20_240_603, bars: 6000, startTs: Date.UTC(2024, 0, 1), stepMs: HOUR_MS, s0: 250, calendar: 'continuous' },
}

export function seedDatasetsOf(level: SeedLevel): SeedDataset[] {
  const { daily10y, intraday100k } = SYNTHETIC_PRESETS
  if (level === 'none') return []
  if (level === 'full') {
    return [
      { symbol: daily10y.symbol, timeframe: daily10y.timeframe, spec: { ...daily10y.spec } },
      { symbol: intraday100k.symbol, timeframe: intraday100k.timeframe, spec: { ...intraday100k.spec } },
      HOURLY,
    ]
  }
  // Same generators and seeds, fewer bars: enough for every route's defaults (walk-forward needs a few hundred).
  return [
    { symbol: daily10y.symbol, timeframe: daily10y.timeframe, spec: { ...daily10y.spec, bars: 800 } },
    { symbol: intraday100k.symbol, timeframe: intraday100k.timeframe, spec: { ...intraday100k.spec, bars: 2000 } },
  ]
}

const SEEDED_KEY = 'trading.seeded'

/**
 * Seeds once per database: when no dataset exists and this database was never seeded (a user who removes the
 * synthetic data does not get it back). Returns the symbols written.
 */
export async function seedIfFirstStart(sql: Sql, level: SeedLevel, now: number): Promise<string[]> {
  if (level === 'none') return []
  if (await wasSeeded(sql)) return []
  const datasets = seedDatasetsOf(level)
  const createdAt = new Date(now).toISOString()
  // Generated before the transaction opens: it holds only database work.
  const generated = datasets.map(({ spec }) => {
    const bars = generateSyntheticBars(spec)
    return { bars, sha256: barsSha256(bars) }
  })
  const seeding = sql.transaction(async (tx) => {
    // Another replica starting on the same database may have seeded it first.
    if (await wasSeeded(tx)) return false
    // The marker goes first: a replica seeding at the same moment waits on its key instead of inserting every bar
    // too, and then finds the database seeded (on PostgreSQL its transaction is retried).
    const marked = await tx.run('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
      [SEEDED_KEY, JSON.stringify({ level, symbols: datasets.map((d) => d.symbol) }), createdAt])
    if (marked.changes === 0) return false
    const repo = createTradingRepository(tx)
    for (const [i, { symbol, timeframe, spec }] of datasets.entries()) {
      const { bars, sha256 } = generated[i]!
      await repo.insertDataset({
        symbol,
        timeframe,
        source: 'synthetic',
        sha256,
        seed: spec.seed,
        generator: JSON.stringify({
          function: 'generateSyntheticBars',
          model: 'geometric Brownian motion with Markov regime switches',
          spec,
          regimes: spec.regimes ?? DEFAULT_REGIMES,
        }),
        origin: null,
        created_at: createdAt,
        quality: JSON.stringify(qualityOf(bars, null, null)),
      }, bars)
    }
    return true
  })
  try {
    return (await seeding) ? datasets.map((d) => d.symbol) : []
  } catch (err) {
    // A unique constraint refused these datasets: another replica seeded this database at the same moment.
    if (await wasSeeded(sql)) return []
    throw err
  }
}

async function wasSeeded(sql: Sql): Promise<boolean> {
  const seeded = await sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [SEEDED_KEY])
  return seeded !== undefined || (await createTradingRepository(sql).datasetCount()) > 0
}
