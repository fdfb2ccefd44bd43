// Seeded pseudo-random numbers (xoshiro128**, seeded through splitmix32): the engine's only source of randomness.

export interface Rng {
  /** Uniform in [0, 1) with 32 bits of resolution. */
  next(): number
  /** Uniform integer in [0, n). */
  int(n: number): number
  /** Standard normal (Marsaglia polar method). */
  normal(): number
}

/** A generator whose whole sequence is fixed by `seed` (any finite number; its low 32 bits and fraction are mixed in). */
export function createRng(seed: number): Rng {
  let s = (Math.trunc(seed) ^ Math.trunc((seed % 1) * 0x100000000)) >>> 0
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = splitmix32()
  let b = splitmix32()
  let c = splitmix32()
  let d = splitmix32()
  if ((a | b | c | d) === 0) a = 1 // the all-zero state is a fixed point of xoshiro

  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0
    const t = (b << 9) >>> 0
    c = (c ^ a) >>> 0
    d = (d ^ b) >>> 0
    b = (b ^ c) >>> 0
    a = (a ^ d) >>> 0
    c = (c ^ t) >>> 0
    d = rotl(d, 11)
    return result
  }

  let spareNormal = NaN
  return {
    next: () => nextU32() / 0x100000000,
    int: (n: number) => Math.floor((nextU32() / 0x100000000) * n),
    normal: () => {
      if (!Number.isNaN(spareNormal)) {
        const v = spareNormal
        spareNormal = NaN
        return v
      }
      for (let guard = 0; guard < 1000; guard++) {
        const u = 2 * (nextU32() / 0x100000000) - 1
        const v = 2 * (nextU32() / 0x100000000) - 1
        const q = u * u + v * v
        if (q > 0 && q < 1) {
          const f = Math.sqrt((-2 * Math.log(q)) / q)
          spareNormal = v * f
          return u * f
        }
      }
      return 0
    },
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0
}
