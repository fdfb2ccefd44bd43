// A host given a large dataset straight into its store (no import request to measure), and let past its start-up work.
import type { FastifyInstance } from 'fastify'
import type { Bars } from '../../src/engines/trading/types.js'
import { START_REPORT_DELAY_MS } from '../../src/admin/collectors.js'
import { barsSha256 } from '../../src/trading/checksum.js'
import { createTradingRepository } from '../../src/trading/repository.js'

export async function storeDataset(app: FastifyInstance, symbol: string, timeframe: string, bars: Bars): Promise<void> {
  await createTradingRepository(app.store.sql).transaction((tx) => tx.insertDataset({
    symbol, timeframe, source: 'import', sha256: barsSha256(bars), seed: null, generator: null,
    origin: 'hardening', created_at: '2026-01-01T00:00:00.000Z',
  }, bars))
}

/**
 * The go-live report runs once START_REPORT_DELAY_MS after listening and scans the sources on the loop (0.45 s): a
 * start-up cost, not a hardening test's subject, so it is over before anything is measured.
 */
export async function pastStartReport(app: FastifyInstance): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, START_REPORT_DELAY_MS + 500))
  await app.adminCollectors.readiness.report({ smoke: false })
}
