// Which points of a long series a chart keeps: the stored run's curve and the answer's `equity_points` both cut here.

/**
 * The indices of at most `maxPoints` points: the series is cut into maxPoints/2 buckets and each keeps its lowest and
 * highest point in time order, so peaks and drawdowns survive; the first and last points are always kept.
 */
export function downsampleIndices(values: ArrayLike<number>, maxPoints: number): Uint32Array {
  const n = values.length
  if (n <= maxPoints) {
    const all = new Uint32Array(n)
    for (let i = 0; i < n; i++) all[i] = i
    return all
  }
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2))
  const out = new Uint32Array(2 + 2 * buckets)
  let kept = 0
  out[kept++] = 0
  const inner = n - 2
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets)
    const to = 1 + Math.floor(((b + 1) * inner) / buckets)
    if (to <= from) continue
    let lo = from
    let hi = from
    for (let i = from; i < to; i++) {
      if (values[i]! < values[lo]!) lo = i
      if (values[i]! > values[hi]!) hi = i
    }
    out[kept++] = Math.min(lo, hi)
    if (hi !== lo) out[kept++] = Math.max(lo, hi)
  }
  out[kept++] = n - 1
  return out.subarray(0, kept)
}

/** The kept points as [ts, value] pairs (a stored run's curve: at most a few hundred). */
export function downsample(ts: ArrayLike<number>, values: ArrayLike<number>, maxPoints: number): Array<[number, number]> {
  return Array.from(downsampleIndices(values, maxPoints), (i) => [ts[i]!, values[i]!] as [number, number])
}
