import { generateSyntheticBars, SYNTHETIC_PRESETS, sma } from '../../src/trading/engine/index.js'
const b = generateSyntheticBars(SYNTHETIC_PRESETS.intraday100k.spec)
function plain(values: Float64Array, n: number) { const out = new Float64Array(values.length); let s = 0; for (let i = 0; i < values.length; i++) { s += values[i]!; if (i >= n) s -= values[i - n]!; out[i] = i >= n - 1 ? s / n : NaN } return out }
const time = (label: string, f: () => unknown) => { let best = Infinity; for (let k = 0; k < 30; k++) { const t = performance.now(); f(); best = Math.min(best, performance.now() - t) } console.log(label, best.toFixed(3)) }
time('sma', () => sma(b.close, 30))
time('plain', () => plain(b.close, 30))
time('alloc', () => new Float64Array(100000))
