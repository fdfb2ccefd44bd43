// Runtime detection of WebAssembly and its SIMD extension, by validating real (tiny) modules.
import { wasmApi } from './wasm-api.js'

/** The smallest valid module: magic number and version only. */
export const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00)

/** `(module (func (result v128) (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 1 2 3 4))))` */
export const SIMD_MODULE = Uint8Array.of(
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () -> v128
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x0a, 0x2b, 0x01, 0x29, 0x00, // code section: one body of 41 bytes, no locals
  0xfd, 0x0c, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03, 0, 0, 0, 0x04, 0, 0, 0, // v128.const i32x4 1 2 3 4
  0xfd, 0x0c, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03, 0, 0, 0, 0x04, 0, 0, 0, // v128.const i32x4 1 2 3 4
  0xfd, 0xae, 0x01, // i32x4.add
  0x0b, // end
)

export interface WasmSupport {
  webassembly: boolean
  simd: boolean
}

export function detectWasm(): WasmSupport {
  const api = wasmApi()
  if (!api || typeof api.validate !== 'function') return { webassembly: false, simd: false }
  const valid = (bytes: Uint8Array) => {
    try {
      return api.validate(bytes)
    } catch {
      return false
    }
  }
  const webassembly = valid(EMPTY_MODULE)
  return { webassembly, simd: webassembly && valid(SIMD_MODULE) }
}
