// Mean and variance of many overlapping windows of one series in O(series + windows × pieces): the bars are cut at
// every window edge into pieces, each piece's count, mean and squared deviations taken once (two passes, no
// division per value), and a window's moments merged from its pieces (Chan, Golub & LeVeque's pairwise update) —
// as accurate as a running Welford update per window, without its division per value and window.

export interface Span {
  from: number
  to: number
}

export class WindowMoments {
  /** Sorted distinct window edges; piece j is [edges[j], edges[j+1]). */
  private readonly edges: Int32Array
  private readonly count: Float64Array
  private readonly mean: Float64Array
  private readonly m2: Float64Array
  /** For each window, its first piece and one past its last. */
  private readonly pieces: Int32Array

  constructor(windows: readonly Span[]) {
    const edges = [...new Set(windows.flatMap((w) => [w.from, w.to]))].sort((a, b) => a - b)
    this.edges = Int32Array.from(edges)
    const k = Math.max(0, edges.length - 1)
    this.count = new Float64Array(k)
    this.mean = new Float64Array(k)
    this.m2 = new Float64Array(k)
    this.pieces = new Int32Array(windows.length * 2)
    windows.forEach((w, i) => {
      this.pieces[2 * i] = edges.indexOf(w.from)
      this.pieces[2 * i + 1] = edges.indexOf(w.to)
    })
  }

  /** Takes the pieces' moments of `x` (every window then reads from them). */
  load(x: Float64Array): void {
    const edges = this.edges
    for (let j = 0; j < this.count.length; j++) {
      const from = edges[j]!
      const to = edges[j + 1]!
      let sum = 0
      for (let i = from; i < to; i++) sum += x[i]!
      const len = to - from
      const m = len ? sum / len : 0
      let ss = 0
      for (let i = from; i < to; i++) {
        const d = x[i]! - m
        ss += d * d
      }
      this.count[j] = len
      this.mean[j] = m
      this.m2[j] = ss
    }
  }

  /** Mean / sample standard deviation of window `w` (the per-bar Sharpe ratio); NaN under 2 values or when flat. */
  sharpe(w: number): number {
    const first = this.pieces[2 * w]!
    const end = this.pieces[2 * w + 1]!
    let n = 0
    let mean = 0
    let m2 = 0
    for (let j = first; j < end; j++) {
      const nb = this.count[j]!
      if (!nb) continue
      const total = n + nb
      const delta = this.mean[j]! - mean
      mean += (delta * nb) / total
      m2 += this.m2[j]! + (delta * delta * n * nb) / total
      n = total
    }
    if (n < 2) return NaN
    const sd = Math.sqrt(m2 / (n - 1))
    return sd > 1e-15 ? mean / sd : NaN
  }
}
