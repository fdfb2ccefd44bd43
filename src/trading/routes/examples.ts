// Inputs of the platform's POST routes that succeed on a host with the synthetic seed: the explorer starts from them
// (config.examples) and test/openapi-examples.test.ts runs each one.
import type { RefusalCode } from '../../http/refusal.js'

/** What a route whose door needs a scope (src/access/doors.ts) adds to its refusals. */
export const SCOPE_REFUSALS: readonly RefusalCode[] = ['unauthorized', 'forbidden']

export const IMPORT_EXAMPLES = [{
  symbol: 'EXAMPLE',
  timeframe: '1d',
  csv: 'Date,Open,High,Low,Close,Volume\n2024-01-02,10,11,9.5,10.5,1000\n2024-01-03,10.5,11.2,10.1,11,1200\n' +
    '2024-01-04,11,11.5,10.8,11.1,900\n2024-01-05,11.1,11.6,10.9,11.4,950\n',
}]

export const BACKTEST_EXAMPLES = [{ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, commission: 0.002 }]

export const SIMULATE_EXAMPLES = [{ dataset: 'SYN-DAILY', strategy: 'sma_cross', paths: 200, horizon: 60, seed: 42 }]

export const MAX_EDGE_EXAMPLES = [{
  dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5, 10], slow: [30, 60] } }, in_sample: 200, out_of_sample: 50,
}]

export const MAX_EDGE_V10_EXAMPLES = [{ dataset: 'SYN-DAILY', fast: [5, 10], slow: [30, 60] }]

export const FULL_CYCLE_EXAMPLES = [{ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 } }]
