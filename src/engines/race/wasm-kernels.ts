// The WebAssembly kernels behind a small typed interface: operands are copied into the module's memory once.
import { wasmApi, type WasmMemory } from './wasm-api.js'

interface KernelExports {
  memory: WasmMemory
  crc32_init(): void
  crc32(ptr: number, len: number): number
  fnv1a32(ptr: number, len: number): number
  dot_f64(x: number, y: number, n: number): number
}

export interface WasmKernels {
  crc32(): number
  fnv1a32(): number
  dotF64(): number
}

const DATA_AT = 1024 // below: the CRC-32 table
const PAGE = 65536
const align16 = (n: number) => (n + 15) & ~15

/** Instantiates the module synchronously (it is small) and loads the operands into its memory. */
export function loadWasmKernels(wasm: Uint8Array, bytes: Uint8Array, x: Float64Array, y: Float64Array): WasmKernels {
  const api = wasmApi()
  if (!api) throw new Error('this runtime has no WebAssembly')
  const k = new api.Instance<KernelExports>(new api.Module(wasm), {}).exports
  const xAt = align16(DATA_AT + bytes.length)
  const yAt = align16(xAt + x.byteLength)
  const end = yAt + y.byteLength
  const have = k.memory.buffer.byteLength
  if (end > have) k.memory.grow(Math.ceil((end - have) / PAGE))
  k.crc32_init()
  new Uint8Array(k.memory.buffer, DATA_AT, bytes.length).set(bytes)
  new Float64Array(k.memory.buffer, xAt, x.length).set(x)
  new Float64Array(k.memory.buffer, yAt, y.length).set(y)
  const len = bytes.length
  const n = x.length
  return {
    crc32: () => k.crc32(DATA_AT, len) >>> 0,
    fnv1a32: () => k.fnv1a32(DATA_AT, len) >>> 0,
    dotF64: () => k.dot_f64(xAt, yAt, n),
  }
}
