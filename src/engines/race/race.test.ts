import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ensureWasmBuilt } from '../../../scripts/build-wasm.js'
import { crc32, dotF64, fnv1a32 } from './ts-kernels.js'
import { loadWasmKernels } from './wasm-kernels.js'
import { dotOperands, generateBytes } from './operands.js'
import { RACE_KERNELS, runRace } from './race.js'
import { detectWasm, EMPTY_MODULE, SIMD_MODULE } from './detect.js'
import { compileWat } from './compile-wat.js'

const ascii = (s: string) => Buffer.from(s, 'latin1')
let wasm: Uint8Array

beforeAll(async () => {
  wasm = readFileSync(await ensureWasmBuilt())
})

const wasmOn = (bytes: Uint8Array) => {
  const { x, y } = dotOperands(bytes)
  return loadWasmKernels(wasm, bytes, x, y)
}

// Check values: the CRC-32 "check" of "123456789" (IEEE 802.3 / ISO-HDLC catalogue entry), and the FNV-1a 32 vectors
// of the reference test suite (Fowler/Noll/Vo, test_fnv.c).
const crcVectors: Array<[string, number]> = [
  ['', 0x00000000],
  ['123456789', 0xcbf43926],
  ['a', 0xe8b7be43],
  ['The quick brown fox jumps over the lazy dog', 0x414fa339],
]
const fnvVectors: Array<[string, number]> = [
  ['', 0x811c9dc5],
  ['a', 0xe40c292c],
  ['foobar', 0xbf9cf968],
  ['chongo was here!\n', 0xd49930d5],
]

describe('kernels against published check values', () => {
  it.each(crcVectors)('crc32(%j)', (text, expected) => {
    expect(crc32(ascii(text))).toBe(expected)
    expect(wasmOn(ascii(text)).crc32()).toBe(expected)
  })

  it.each(fnvVectors)('fnv1a32(%j)', (text, expected) => {
    expect(fnv1a32(ascii(text))).toBe(expected)
    expect(wasmOn(ascii(text)).fnv1a32()).toBe(expected)
  })

  it('dot products agree to the bit and match the plain sum where it is exact', () => {
    const x = Float64Array.of(1, 2, 3)
    const y = Float64Array.of(4, 5, 6)
    expect(dotF64(x, y)).toBe(32)
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const { x: xs, y: ys } = dotOperands(bytes)
        const w = wasmOn(bytes)
        expect(Object.is(w.dotF64(), dotF64(xs, ys))).toBe(true)
        expect(w.crc32()).toBe(crc32(bytes))
        expect(w.fnv1a32()).toBe(fnv1a32(bytes))
      }),
      { numRuns: 200 },
    )
  })
})

describe('runRace', () => {
  const fakeTimer = () => {
    let t = 0n
    return () => (t += 1000n)
  }

  it('runs every kernel in both implementations, alternately, and reports agreement', () => {
    const result = runRace({
      bytes: generateBytes(4096, 7),
      rounds: 5,
      kernels: RACE_KERNELS,
      wasm,
      timer: process.hrtime.bigint,
      expired: () => false,
    })
    expect(result.rounds_completed).toBe(5)
    expect(result.all_agreed).toBe(true)
    expect(result.kernels.map((k) => k.kernel)).toEqual(['crc32', 'fnv1a32', 'dot_f64'])
    for (const kernel of result.kernels) {
      expect(kernel.agreed).toBe(true)
      expect(kernel.implementations.map((i) => i.implementation).sort()).toEqual(['ts', 'wasm'])
      for (const impl of kernel.implementations) {
        expect(impl.samples).toBe(5)
        expect(impl.min_ns_per_byte).toBeLessThanOrEqual(impl.median_ns_per_byte)
        expect(impl.median_ns_per_byte).toBeLessThanOrEqual(impl.max_ns_per_byte)
      }
      expect(kernel.winner).not.toBeNull()
    }
    expect(result.kernels[2]!.operand_bytes).toBe(16 * 4096)
    expect(result.winner).not.toBeNull()
  })

  it('reports the outputs it computed', () => {
    const result = runRace({ bytes: ascii('123456789'), rounds: 1, kernels: ['crc32', 'fnv1a32'], wasm, timer: fakeTimer(), expired: () => false })
    expect(result.kernels[0]!.implementations.map((i) => i.output)).toEqual(['cbf43926', 'cbf43926'])
    expect(result.kernels[1]!.implementations[0]!.output).toBe(fnv1a32(ascii('123456789')).toString(16).padStart(8, '0'))
    // A fake clock that ticks 1000 ns per reading: every run measures 1000 ns.
    expect(result.kernels[0]!.implementations[0]!.median_ns_per_byte).toBeCloseTo(1000 / 9)
  })

  it('stops between rounds when the budget is spent, after at least one', () => {
    const result = runRace({ bytes: generateBytes(64, 1), rounds: 50, kernels: ['fnv1a32'], wasm, timer: fakeTimer(), expired: () => true })
    expect(result).toMatchObject({ rounds_completed: 1, stopped_by_deadline: true })
  })

  it('races TypeScript alone, naming no winner, when there is no WASM', () => {
    const result = runRace({ bytes: generateBytes(64, 1), rounds: 2, kernels: ['crc32'], wasm: null, timer: fakeTimer(), expired: () => false })
    expect(result.kernels[0]!.implementations.map((i) => i.implementation)).toEqual(['ts'])
    expect(result.winner).toBeNull()
    expect(result.kernels[0]!.winner).toBeNull()
  })

  it('detects disagreement and names no winner', () => {
    // A module whose crc32 export answers 0 for everything: a deliberately wrong kernel.
    const broken = async () =>
      compileWat(
        readFileSync(new URL('./kernels.wat', import.meta.url), 'utf8').replace(
          '(i32.xor (local.get $crc) (i32.const -1)))',
          '(drop (local.get $crc)) (i32.const 0))',
        ),
      )
    return broken().then((bad) => {
      const result = runRace({ bytes: ascii('123456789'), rounds: 2, kernels: ['crc32'], wasm: bad, timer: fakeTimer(), expired: () => false })
      expect(result.all_agreed).toBe(false)
      expect(result.kernels[0]).toMatchObject({ agreed: false, winner: null, speedup: null })
      expect(result.winner).toBeNull()
    })
  })
})

describe('generateBytes', () => {
  it('is reproducible by seed', () => {
    expect(generateBytes(32, 5)).toEqual(generateBytes(32, 5))
    expect(generateBytes(32, 5)).not.toEqual(generateBytes(32, 6))
  })
})

describe('detectWasm', () => {
  it('validates real modules on this runtime', () => {
    expect(detectWasm()).toEqual({ webassembly: true, simd: true })
  })

  it('uses a SIMD probe that wabt compiles to the same bytes', async () => {
    const compiled = await compileWat('(module (func (result v128) (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 1 2 3 4))))')
    expect(Buffer.from(compiled).equals(Buffer.from(SIMD_MODULE))).toBe(true)
    expect(EMPTY_MODULE).toHaveLength(8)
  })

  it('says no when the runtime has no WebAssembly', () => {
    const saved = (globalThis as { WebAssembly?: unknown }).WebAssembly
    try {
      Object.defineProperty(globalThis, 'WebAssembly', { value: undefined, configurable: true, writable: true })
      expect(detectWasm()).toEqual({ webassembly: false, simd: false })
    } finally {
      Object.defineProperty(globalThis, 'WebAssembly', { value: saved, configurable: true, writable: true })
    }
  })
})
