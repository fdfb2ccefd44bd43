// Myers' O(ND) difference algorithm, linear-space (middle snake) variant, over sequences of interned integer ids.

/** a[aStart, aEnd) is replaced by b[bStart, bEnd); either range may be empty. Changes are in order, never adjacent. */
export interface Change {
  aStart: number
  aEnd: number
  bStart: number
  bEnd: number
}

export interface SequenceDiff {
  changes: Change[]
  /** False when a cost cap or the work budget cut the search short: the script is still correct, maybe not shortest. */
  minimal: boolean
}

export interface SequenceDiffOptions {
  /** Bound on inner-loop steps (diagonal visits + snake steps); past it, what is left is marked changed wholesale. */
  maxWork?: number
  /** Edit cost after which one middle-snake search settles for its furthest-reaching point (GNU diff's heuristic). */
  tooExpensive?: number
}

export const DEFAULT_MAX_WORK = 200_000_000

/**
 * The shortest edit script turning `a` into `b`. Ids that occur on one side only can never be matched, so they are
 * set aside first (this keeps the LCS, hence minimality) and the search runs on what can match.
 */
export function diffSequences(a: Int32Array, b: Int32Array, options: SequenceDiffOptions = {}): SequenceDiff {
  const removed = new Uint8Array(a.length)
  const added = new Uint8Array(b.length)

  let lo = 0
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) lo++
  let aHi = a.length
  let bHi = b.length
  while (aHi > lo && bHi > lo && a[aHi - 1] === b[bHi - 1]) {
    aHi--
    bHi--
  }

  let maxId = 0
  for (let i = lo; i < aHi; i++) if (a[i]! > maxId) maxId = a[i]!
  for (let j = lo; j < bHi; j++) if (b[j]! > maxId) maxId = b[j]!
  const inA = new Uint8Array(maxId + 1)
  const inB = new Uint8Array(maxId + 1)
  for (let i = lo; i < aHi; i++) inA[a[i]!] = 1
  for (let j = lo; j < bHi; j++) inB[b[j]!] = 1

  const keptA = new Int32Array(aHi - lo)
  const keptB = new Int32Array(bHi - lo)
  let na = 0
  let nb = 0
  for (let i = lo; i < aHi; i++) {
    if (inB[a[i]!]) keptA[na++] = i
    else removed[i] = 1
  }
  for (let j = lo; j < bHi; j++) {
    if (inA[b[j]!]) keptB[nb++] = j
    else added[j] = 1
  }
  const ra = new Int32Array(na)
  const rb = new Int32Array(nb)
  for (let i = 0; i < na; i++) ra[i] = a[keptA[i]!]!
  for (let j = 0; j < nb; j++) rb[j] = b[keptB[j]!]!
  const rRemoved = new Uint8Array(ra.length)
  const rAdded = new Uint8Array(rb.length)
  const minimal = compareSequences(ra, rb, rRemoved, rAdded, options)
  for (let i = 0; i < ra.length; i++) if (rRemoved[i]) removed[keptA[i]!] = 1
  for (let j = 0; j < rb.length; j++) if (rAdded[j]) added[keptB[j]!] = 1

  return { changes: changesFromMarks(removed, added), minimal }
}

/** Groups per-element marks into change regions; unmarked elements pair up in order as the common subsequence. */
export function changesFromMarks(removed: Uint8Array, added: Uint8Array): Change[] {
  const changes: Change[] = []
  const n = removed.length
  const m = added.length
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && !removed[i] && !added[j]) {
      i++
      j++
      continue
    }
    const aStart = i
    const bStart = j
    while (i < n && removed[i]) i++
    while (j < m && added[j]) j++
    if (i === aStart && j === bStart) throw new Error('diff marks are inconsistent: unmatched elements left over')
    changes.push({ aStart, aEnd: i, bStart, bEnd: j })
  }
  return changes
}

/** Marks removed/added elements of x and y; returns whether the script is guaranteed shortest. */
function compareSequences(
  x: Int32Array,
  y: Int32Array,
  removed: Uint8Array,
  added: Uint8Array,
  options: SequenceDiffOptions,
): boolean {
  const n = x.length
  const m = y.length
  const offset = m + 1
  const fd = new Int32Array(n + m + 3)
  const bd = new Int32Array(n + m + 3)
  let tooExpensive = options.tooExpensive ?? 1
  if (options.tooExpensive === undefined) {
    for (let diags = n + m + 3; diags !== 0; diags >>= 2) tooExpensive <<= 1
    tooExpensive = Math.max(4096, tooExpensive)
  }
  const budget = { left: options.maxWork ?? DEFAULT_MAX_WORK }
  let minimal = true
  const split = { x: 0, y: 0, exact: true }

  const stack: number[] = [0, n, 0, m]
  while (stack.length > 0) {
    let ylim = stack.pop()!
    let yoff = stack.pop()!
    let xlim = stack.pop()!
    let xoff = stack.pop()!
    while (xoff < xlim && yoff < ylim && x[xoff] === y[yoff]) {
      xoff++
      yoff++
    }
    while (xlim > xoff && ylim > yoff && x[xlim - 1] === y[ylim - 1]) {
      xlim--
      ylim--
    }
    if (xoff === xlim) {
      for (let j = yoff; j < ylim; j++) added[j] = 1
      continue
    }
    if (yoff === ylim) {
      for (let i = xoff; i < xlim; i++) removed[i] = 1
      continue
    }
    if (budget.left <= 0 || !middleSnake(x, y, xoff, xlim, yoff, ylim, fd, bd, offset, tooExpensive, budget, split)) {
      minimal = false
      for (let i = xoff; i < xlim; i++) removed[i] = 1
      for (let j = yoff; j < ylim; j++) added[j] = 1
      continue
    }
    if (!split.exact) minimal = false
    let { x: xmid, y: ymid } = split
    // A heuristic split must shrink the problem, or the loop would not end.
    if ((xmid === xoff && ymid === yoff) || (xmid === xlim && ymid === ylim)) {
      minimal = false
      xmid = (xoff + xlim) >>> 1
      ymid = (yoff + ylim) >>> 1
    }
    stack.push(xoff, xmid, yoff, ymid, xmid, xlim, ymid, ylim)
  }
  return minimal
}

/**
 * Finds the midpoint of a shortest edit path of x[xoff,xlim) → y[yoff,ylim) by searching from both ends at once
 * (Myers 1986, §4b). Diagonal k = x − y; fd/bd hold the furthest x reached on each diagonal, indexed k + offset.
 * Returns false when the work budget ran out.
 */
function middleSnake(
  x: Int32Array,
  y: Int32Array,
  xoff: number,
  xlim: number,
  yoff: number,
  ylim: number,
  fd: Int32Array,
  bd: Int32Array,
  offset: number,
  tooExpensive: number,
  budget: { left: number },
  split: { x: number; y: number; exact: boolean },
): boolean {
  const dmin = xoff - ylim
  const dmax = xlim - yoff
  const fmid = xoff - yoff
  const bmid = xlim - ylim
  let fmin = fmid
  let fmax = fmid
  let bmin = bmid
  let bmax = bmid
  const odd = ((fmid - bmid) & 1) !== 0
  fd[fmid + offset] = xoff
  bd[bmid + offset] = xlim
  let work = 0

  for (let cost = 1; ; cost++) {
    if (fmin > dmin) fd[--fmin - 1 + offset] = -1
    else fmin++
    if (fmax < dmax) fd[++fmax + 1 + offset] = -1
    else fmax--
    for (let d = fmax; d >= fmin; d -= 2) {
      const tlo = fd[d - 1 + offset]!
      const thi = fd[d + 1 + offset]!
      let xi = tlo >= thi ? tlo + 1 : thi
      let yi = xi - d
      const start = xi
      while (xi < xlim && yi < ylim && x[xi] === y[yi]) {
        xi++
        yi++
      }
      work += 1 + xi - start
      fd[d + offset] = xi
      if (odd && bmin <= d && d <= bmax && bd[d + offset]! <= xi) {
        split.x = xi
        split.y = yi
        split.exact = true
        budget.left -= work
        return true
      }
    }

    if (bmin > dmin) bd[--bmin - 1 + offset] = 0x7fffffff
    else bmin++
    if (bmax < dmax) bd[++bmax + 1 + offset] = 0x7fffffff
    else bmax--
    for (let d = bmax; d >= bmin; d -= 2) {
      const tlo = bd[d - 1 + offset]!
      const thi = bd[d + 1 + offset]!
      let xi = tlo < thi ? tlo : thi - 1
      let yi = xi - d
      const start = xi
      while (xoff < xi && yoff < yi && x[xi - 1] === y[yi - 1]) {
        xi--
        yi--
      }
      work += 1 + start - xi
      bd[d + offset] = xi
      if (!odd && fmin <= d && d <= fmax && xi <= fd[d + offset]!) {
        split.x = xi
        split.y = yi
        split.exact = true
        budget.left -= work
        return true
      }
    }

    if (work > budget.left) {
      budget.left = 0
      return false
    }
    if (cost >= tooExpensive) {
      settleForFurthest(xoff, xlim, yoff, ylim, fd, bd, offset, fmin, fmax, bmin, bmax, split)
      budget.left -= work
      return true
    }
  }
}

/** GNU diff's "too expensive" exit: split at whichever search (forward or backward) got furthest. */
function settleForFurthest(
  xoff: number,
  xlim: number,
  yoff: number,
  ylim: number,
  fd: Int32Array,
  bd: Int32Array,
  offset: number,
  fmin: number,
  fmax: number,
  bmin: number,
  bmax: number,
  split: { x: number; y: number; exact: boolean },
): void {
  let fxybest = -1
  let fxbest = xoff
  for (let d = fmax; d >= fmin; d -= 2) {
    let xi = Math.min(fd[d + offset]!, xlim)
    let yi = xi - d
    if (ylim < yi) {
      xi = ylim + d
      yi = ylim
    }
    if (fxybest < xi + yi) {
      fxybest = xi + yi
      fxbest = xi
    }
  }
  let bxybest = 0x7fffffff
  let bxbest = xlim
  for (let d = bmax; d >= bmin; d -= 2) {
    let xi = Math.max(xoff, bd[d + offset]!)
    let yi = xi - d
    if (yi < yoff) {
      xi = yoff + d
      yi = yoff
    }
    if (xi + yi < bxybest) {
      bxybest = xi + yi
      bxbest = xi
    }
  }
  if (xlim + ylim - bxybest < fxybest - (xoff + yoff)) {
    split.x = fxbest
    split.y = fxybest - fxbest
  } else {
    split.x = bxbest
    split.y = bxybest - bxbest
  }
  split.exact = false
}
