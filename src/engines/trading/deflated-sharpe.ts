// The deflated Sharpe ratio (Bailey & López de Prado, 2014) and the normal distribution functions it needs.

const EULER_GAMMA = 0.5772156649015329

export interface DeflatedSharpe {
  /** Probability that the true Sharpe exceeds the best-of-N benchmark SR0, given non-normal returns. */
  dsr: number | null
  /** Probabilistic Sharpe ratio against 0 (no multiple-testing correction). */
  psr: number | null
  /** Expected maximum Sharpe of `trials` unskilled strategies (per observation, not annualised). */
  sr0: number
  sharpe: number
  trials: number
  observations: number
  skewness: number
  kurtosis: number
}

/**
 * DSR = Φ((SR − SR0)·√(T−1) / √(1 − γ3·SR + (γ4 − 1)/4·SR²)),
 * SR0 = √V[SR_n] · ((1 − γ)·Φ⁻¹(1 − 1/N) + γ·Φ⁻¹(1 − 1/(N·e))), γ the Euler–Mascheroni constant.
 * All Sharpe ratios per observation (not annualised); γ3 skewness, γ4 kurtosis (3 for normal returns) of the
 * chosen strategy's returns; V[SR_n] the variance of the trials' Sharpe ratios; N trials; T observations.
 */
export function deflatedSharpeRatio(input: {
  sharpe: number
  /** Sharpe ratios of the trials (non-finite ones, e.g. a strategy that never traded, are left out of V[SR_n]). */
  trialSharpes: readonly number[]
  /** N, the number of configurations tried (default: the finite trial Sharpes). */
  trials?: number
  returns: ArrayLike<number>
}): DeflatedSharpe {
  const finiteTrials = input.trialSharpes.filter(Number.isFinite)
  const { skewness, kurtosis, count } = moments(input.returns)
  return deflatedSharpeOfMoments({
    sharpe: input.sharpe,
    trialVariance: sampleVariance(finiteTrials),
    trials: input.trials ?? finiteTrials.length,
    observations: count,
    skewness,
    kurtosis,
  })
}

/** The same from the figures the paper states: V[SR_n], N, T and the chosen strategy's skewness and kurtosis. */
export function deflatedSharpeOfMoments(input: {
  sharpe: number
  /** V[SR_n], the variance of the trials' Sharpe ratios (per observation). */
  trialVariance: number
  trials: number
  observations: number
  skewness: number
  /** Not excess: 3 for normal returns. */
  kurtosis: number
}): DeflatedSharpe {
  const { sharpe, trialVariance: variance, observations: count, skewness, kurtosis } = input
  const trials = Math.max(1, input.trials)
  const sr0 = trials > 1 && variance > 0
    ? Math.sqrt(variance) * ((1 - EULER_GAMMA) * normalQuantile(1 - 1 / trials) + EULER_GAMMA * normalQuantile(1 - 1 / (trials * Math.E)))
    : 0
  const denom = 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe
  const z = (bench: number): number | null => {
    if (count < 2 || !(denom > 0) || !Number.isFinite(sharpe)) return null
    return normalCdf(((sharpe - bench) * Math.sqrt(count - 1)) / Math.sqrt(denom))
  }
  return { dsr: z(sr0), psr: z(0), sr0, sharpe, trials, observations: count, skewness, kurtosis }
}

/** Standard normal CDF (Hart's double-precision algorithm as given by G. West, 2005). */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return NaN
  const a = Math.abs(x)
  let c: number
  if (a > 37) {
    c = 0
  } else {
    const e = Math.exp(-a * a / 2)
    if (a < 7.07106781186547) {
      let b = 3.52624965998911e-2 * a + 0.700383064443688
      b = b * a + 6.37396220353165
      b = b * a + 33.912866078383
      b = b * a + 112.079291497871
      b = b * a + 221.213596169931
      b = b * a + 220.206867912376
      c = e * b
      b = 8.83883476483184e-2 * a + 1.75566716318264
      b = b * a + 16.064177579207
      b = b * a + 86.7807322029461
      b = b * a + 296.564248779674
      b = b * a + 637.333633378831
      b = b * a + 793.826512519948
      b = b * a + 440.413735824752
      c /= b
    } else {
      let b = a + 0.65
      b = a + 4 / b
      b = a + 3 / b
      b = a + 2 / b
      b = a + 1 / b
      c = e / b / 2.506628274631
    }
  }
  return x > 0 ? 1 - c : c
}

/** Standard normal quantile: Acklam's rational approximation refined by one Halley step. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]
  const lo = 0.02425
  let x: number
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p))
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  } else if (p <= 1 - lo) {
    const q = p - 0.5
    const r = q * q
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p))
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  }
  const e = normalCdf(x) - p
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2)
  return x - u / (1 + (x * u) / 2)
}

function moments(values: ArrayLike<number>): { skewness: number; kurtosis: number; count: number } {
  const n = values.length
  if (n < 2) return { skewness: 0, kurtosis: 3, count: n }
  let mean = 0
  for (let i = 0; i < n; i++) mean += values[i]!
  mean /= n
  let m2 = 0, m3 = 0, m4 = 0
  for (let i = 0; i < n; i++) {
    const d = values[i]! - mean
    const d2 = d * d
    m2 += d2
    m3 += d2 * d
    m4 += d2 * d2
  }
  m2 /= n; m3 /= n; m4 /= n
  if (m2 === 0) return { skewness: 0, kurtosis: 3, count: n }
  return { skewness: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2), count: n }
}

function sampleVariance(values: readonly number[]): number {
  const n = values.length
  if (n < 2) return 0
  let m = 0
  for (const v of values) m += v
  m /= n
  let ss = 0
  for (const v of values) ss += (v - m) ** 2
  return ss / (n - 1)
}
