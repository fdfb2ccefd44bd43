// When the CDCL solver restarts: it alternates a focused mode (glucose-style, restart when recent learned clauses get
// worse than the long-run average) and a stable mode (rare Luby restarts), in phases of geometrically growing length.

const FOCUSED_MIN_CONFLICTS = 50
const FOCUSED_MARGIN = 1.25
const EMA_FAST = 1 / 32
const EMA_SLOW = 1 / 4096
const STABLE_LUBY_UNIT = 1024
const FIRST_MODE_LENGTH = 1000

/** The i-th element (from 0) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 …. */
export function luby(i: number): number {
  let size = 1
  let exponent = 0
  while (size < i + 1) {
    exponent++
    size = 2 * size + 1
  }
  let x = i
  while (size - 1 !== x) {
    size = (size - 1) >> 1
    exponent--
    x %= size
  }
  return 2 ** exponent
}

export class RestartPolicy {
  private emaFast = 0
  private emaSlow = 0
  private samples = 0
  private sinceRestart = 0
  private stable = false
  private phase = 0
  private phaseEnds = FIRST_MODE_LENGTH
  private stableRestarts = 0

  /** Records a conflict and the LBD of the clause it taught. */
  onConflict(lbd: number): void {
    this.sinceRestart++
    this.samples++
    // Bias-corrected start: the first samples are averaged exactly, then the fixed rates take over.
    this.emaFast += (lbd - this.emaFast) * Math.max(EMA_FAST, 1 / this.samples)
    this.emaSlow += (lbd - this.emaSlow) * Math.max(EMA_SLOW, 1 / this.samples)
  }

  /** Asked between conflicts; true means: backtrack to level 0 now. */
  shouldRestart(conflicts: number): boolean {
    if (conflicts >= this.phaseEnds) {
      this.stable = !this.stable
      this.phase++
      this.phaseEnds = conflicts + FIRST_MODE_LENGTH * 2 ** (this.phase >> 1)
      this.stableRestarts = 0
      return this.restarted()
    }
    if (this.stable) {
      if (this.sinceRestart < STABLE_LUBY_UNIT * luby(this.stableRestarts)) return false
      this.stableRestarts++
      return this.restarted()
    }
    if (this.sinceRestart < FOCUSED_MIN_CONFLICTS || this.emaFast <= FOCUSED_MARGIN * this.emaSlow) return false
    return this.restarted()
  }

  private restarted(): true {
    this.sinceRestart = 0
    return true
  }
}
