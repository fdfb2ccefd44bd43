// The deflated Sharpe ratio against the numerical example of Bailey & López de Prado, "The Deflated Sharpe Ratio:
// Correcting for Selection Bias, Backtest Overfitting and Non-Normality" (Journal of Portfolio Management 40(5), 2014):
// N = 100 trials whose annualised Sharpe ratios vary with V = 1/2, the best one annualised SR = 2.5, T = 1250 daily
// observations (5 years of 250 days), skewness −3 and kurtosis 10 of its returns. The paper gives SR0 ≈ 0.1132 (per
// day) and DSR ≈ 0.9004. The expected figures are also computed here with a normal CDF and quantile of this file's
// own (Marsaglia's series, bisection), not the engine's.
import { describe, expect, it } from 'vitest'
import { deflatedSharpeOfMoments, deflatedSharpeRatio } from './deflated-sharpe.js'

const DAYS_PER_YEAR = 250
const EXAMPLE = {
  trials: 100,
  annualTrialVariance: 0.5,
  annualSharpe: 2.5,
  observations: 1250,
  skewness: -3,
  kurtosis: 10,
}

/** Φ by Marsaglia's series: 1/2 + φ(x)·Σ x^(2n+1)/(1·3·…·(2n+1)) (exact to double precision for |x| < 8). */
function phi(x: number): number {
  let term = x
  let sum = x
  for (let n = 1; n < 500 && Math.abs(term) > 1e-18 * Math.abs(sum); n++) {
    term *= (x * x) / (2 * n + 1)
    sum += term
  }
  return 0.5 + sum * Math.exp(-(x * x) / 2 - 0.5 * Math.log(2 * Math.PI))
}

/** Φ⁻¹ by bisection on phi. */
function phiInverse(p: number): number {
  let lo = -8
  let hi = 8
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (phi(mid) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** The paper's equations written out again: SR0 from N and V[SR_n], then DSR = Φ(…). */
function expected(e: { trials: number; variance: number; sharpe: number; observations: number; skewness: number; kurtosis: number }) {
  const gamma = 0.5772156649015329
  const sr0 = Math.sqrt(e.variance) * ((1 - gamma) * phiInverse(1 - 1 / e.trials) + gamma * phiInverse(1 - 1 / (e.trials * Math.E)))
  const z = ((e.sharpe - sr0) * Math.sqrt(e.observations - 1)) / Math.sqrt(1 - e.skewness * e.sharpe + ((e.kurtosis - 1) / 4) * e.sharpe ** 2)
  return { sr0, dsr: phi(z) }
}

// Per observation (the engine's and the paper's equations' unit): annualised figures de-annualised by 250 days.
const perDay = {
  trials: EXAMPLE.trials,
  variance: EXAMPLE.annualTrialVariance / DAYS_PER_YEAR,
  sharpe: EXAMPLE.annualSharpe / Math.sqrt(DAYS_PER_YEAR),
  observations: EXAMPLE.observations,
  skewness: EXAMPLE.skewness,
  kurtosis: EXAMPLE.kurtosis,
}

describe('the deflated Sharpe ratio, the paper\'s numerical example', () => {
  it('this file\'s own normal functions hold at known points', () => {
    expect(phi(0)).toBe(0.5)
    expect(phi(1.959963984540054)).toBeCloseTo(0.975, 14)
    expect(phiInverse(0.99)).toBeCloseTo(2.3263478740408408, 12)
  })

  it('gives SR0 ≈ 0.1132 and DSR ≈ 0.9004, as the paper does and as computed here independently', () => {
    const want = expected(perDay)
    // The paper's printed figures, to its four decimals.
    expect(want.sr0).toBeCloseTo(0.1132, 4)
    expect(want.dsr).toBeCloseTo(0.9004, 4)
    const got = deflatedSharpeOfMoments({
      sharpe: perDay.sharpe, trialVariance: perDay.variance, trials: perDay.trials,
      observations: perDay.observations, skewness: perDay.skewness, kurtosis: perDay.kurtosis,
    })
    expect(got.sr0).toBeCloseTo(want.sr0, 9)
    expect(got.dsr).toBeCloseTo(want.dsr, 9)
    expect(got.dsr).toBeCloseTo(0.9004, 4)
    // Against zero instead of SR0 (the probabilistic Sharpe ratio) the same strategy is nearly certain.
    const denominator = Math.sqrt(1 - perDay.skewness * perDay.sharpe + ((perDay.kurtosis - 1) / 4) * perDay.sharpe ** 2)
    expect(got.psr).toBeCloseTo(phi((perDay.sharpe * Math.sqrt(perDay.observations - 1)) / denominator), 9)
    expect(got.psr!).toBeGreaterThan(0.999)
  })

  it('reaches the same figures from a return series and trial Sharpes that have the example\'s moments', () => {
    // 100 trial Sharpes ±a: their sample variance is 100·a²/99, set to V[SR_n].
    const a = Math.sqrt((perDay.variance * 99) / 100)
    const trialSharpes = Array.from({ length: 100 }, (_v, i) => (i % 2 === 0 ? a : -a))
    // 1250 returns of two values, the low one 105 times: a two-point distribution's skewness is
    // −(1 − 2q)/√(q(1 − q)) for the share q of its low value, and its kurtosis is skewness² + 1 (so −3 and 10 sit on
    // that boundary, and q = 105/1250 comes within 0.001 of them).
    const low = 105
    const q = low / perDay.observations
    const returns = Float64Array.from({ length: perDay.observations }, (_v, i) => (i < low ? -0.05 : 0.004))
    const skewness = -(1 - 2 * q) / Math.sqrt(q * (1 - q))
    const kurtosis = skewness ** 2 + 1
    expect(skewness).toBeCloseTo(-3, 2)
    const got = deflatedSharpeRatio({ sharpe: perDay.sharpe, trialSharpes, returns })
    expect(got.trials).toBe(100)
    expect(got.observations).toBe(1250)
    expect(got.skewness).toBeCloseTo(skewness, 10)
    expect(got.kurtosis).toBeCloseTo(kurtosis, 10)
    const want = expected({ ...perDay, skewness, kurtosis })
    expect(got.sr0).toBeCloseTo(want.sr0, 9)
    expect(got.dsr).toBeCloseTo(want.dsr, 9)
    expect(got.dsr).toBeCloseTo(0.9004, 3)
  })

  it('deflates more as trials grow and is the PSR for a single trial', () => {
    const at = (trials: number) => deflatedSharpeOfMoments({
      sharpe: perDay.sharpe, trialVariance: perDay.variance, trials, observations: perDay.observations, skewness: perDay.skewness, kurtosis: perDay.kurtosis,
    })
    expect(at(1).dsr).toBe(at(1).psr)
    expect(at(1000).dsr!).toBeLessThan(at(100).dsr!)
    expect(at(100).dsr!).toBeLessThan(at(10).dsr!)
    expect(at(1000).dsr).toBeCloseTo(expected({ ...perDay, trials: 1000 }).dsr, 9)
  })
})
