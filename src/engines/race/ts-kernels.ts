// The race kernels in TypeScript, step for step the algorithms of kernels.wat.

const CRC_TABLE = (() => {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
})()

/** CRC-32 (IEEE 802.3), as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array): number {
  let crc = -1
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

/** FNV-1a, 32 bits, as an unsigned 32-bit integer. */
export function fnv1a32(bytes: Uint8Array): number {
  let h = 0x811c9dc5
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 16777619)
  return h >>> 0
}

/** Σ x[i]·y[i] with the even and odd indexes summed apart, then the odd tail: the WASM kernel's two SIMD lanes. */
export function dotF64(x: Float64Array, y: Float64Array): number {
  const n = Math.min(x.length, y.length)
  let even = 0
  let odd = 0
  const pairsEnd = n - (n & 1)
  for (let i = 0; i < pairsEnd; i += 2) {
    even += x[i]! * y[i]!
    odd += x[i + 1]! * y[i + 1]!
  }
  let sum = even + odd
  if (n & 1) sum += x[n - 1]! * y[n - 1]!
  return sum
}
