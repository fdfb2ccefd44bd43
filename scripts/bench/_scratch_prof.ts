import { generateSyntheticBars, SYNTHETIC_PRESETS, sma, computeStats, executeEvents, strategyEvents } from '../../src/trading/engine/index.js'
const b = generateSyntheticBars(SYNTHETIC_PRESETS.intraday100k.spec)
const time = (label: string, f: () => unknown) => { let best = Infinity; for (let k = 0; k < 15; k++) { const t = performance.now(); f(); best = Math.min(best, performance.now() - t) } console.log(label, best.toFixed(2)) }
time('sma', () => sma(b.close, 30))
const ev = strategyEvents(b, 'sma_cross', { fast: 10, slow: 30 })
time('events', () => strategyEvents(b, 'sma_cross', { fast: 10, slow: 30 }))
time('exec', () => executeEvents(b, ev, { cash: 10000, commission: 0.0002 }))
const run = executeEvents(b, ev, { cash: 10000, commission: 0.0002 })
time('stats', () => computeStats({ ts: b.ts, close: b.close, equity: run.equity, trades: run.trades.slice(0, run.closedTrades), firstTradingBar: run.warmup }))
