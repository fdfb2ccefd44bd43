// A host given a large dataset straight into its store (no import request to measure).
import type { FastifyInstance } from 'fastify'
import type { Bars } from '../../src/engines/trading/types.js'
import { barsSha256 } from '../../src/trading/checksum.js'
import { createTradingRepository } from '../../src/trading/repository.js'

export async function storeDataset(app: FastifyInstance, symbol: string, timeframe: string, bars: Bars): Promise<void> {
  await createTradingRepository(app.store.sql).transaction((tx) => tx.insertDataset({
    symbol, timeframe, source: 'import', sha256: barsSha256(bars), seed: null, generator: null,
    origin: 'hardening', created_at: '2026-01-01T00:00:00.000Z',
  }, bars))
}
