import { generateSyntheticBars, SYNTHETIC_PRESETS, runBacktest, inSampleGrid, simulate, walkForward } from '../../src/trading/engine/index.js'
let t = performance.now()
const intraday = generateSyntheticBars(SYNTHETIC_PRESETS.intraday100k.spec)
console.log('gen', performance.now() - t)
for (let k = 0; k < 5; k++) {
  t = performance.now()
  const r = runBacktest(intraday, 'sma_cross', { fast: 10, slow: 30 }, { cash: 10000, commission: 0.0002 })
  const ms = performance.now() - t
  console.log('bt 100k', ms.toFixed(2), 'ms', (100000 / ms / 1000).toFixed(1), 'M bars/s', r.stats.trades, r.stats.return_pct)
}
const daily = generateSyntheticBars(SYNTHETIC_PRESETS.daily10y.spec)
const fast = Array.from({ length: 40 }, (_, i) => 2 + i)
const slow = Array.from({ length: 26 }, (_, i) => 50 + i * 5)
for (let k = 0; k < 3; k++) {
  t = performance.now()
  const g = inSampleGrid(daily, { fast, slow }, { cash: 10000, commission: 0.001 })
  console.log('grid', g.tried, (performance.now() - t).toFixed(1), 'ms', g.best?.fast, g.best?.slow, g.best?.stats.sharpe_ratio, g.signal)
}
t = performance.now()
const mc = simulate(daily, 'sma_cross', { fast: 10, slow: 50 }, { cash: 10000, commission: 0.001 }, { paths: 500, horizon: 252, method: 'bootstrap', block: 5, seed: 7 })
console.log('mc', (performance.now() - t).toFixed(1), JSON.stringify(mc).slice(0, 600))
t = performance.now()
const wf = walkForward(daily, { strategies: ['sma_cross', 'ema_cross', 'rsi_reversion', 'donchian_breakout', 'bollinger_reversion', 'macd', 'buy_and_hold'], inSample: 504, outOfSample: 126, options: { cash: 10000, commission: 0.001 } })
console.log('wf', (performance.now() - t).toFixed(1), wf.configs_tried, JSON.stringify(wf.best), wf.deflated_sharpe, wf.signal, wf.walk_forward, wf.folds.length)
console.log(daily.ts.length, new Date(daily.ts[0]!).toISOString(), new Date(daily.ts.at(-1)!).toISOString(), daily.close.at(-1))
