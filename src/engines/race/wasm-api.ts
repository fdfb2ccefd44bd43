// The slice of the WebAssembly JavaScript API the race uses, typed here: the project's lib settings (ES2023, node)
// carry no WebAssembly declarations.

export interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}

export interface WasmApi {
  validate(bytes: Uint8Array): boolean
  Module: new (bytes: Uint8Array) => object
  /** `E`: the exports the module is known to have (the caller's own module). */
  Instance: new <E = Record<string, unknown>>(module: object, imports: Record<string, unknown>) => { exports: E }
}

/** The runtime's WebAssembly object, or undefined where there is none. */
export const wasmApi = (): WasmApi | undefined => (globalThis as { WebAssembly?: WasmApi }).WebAssembly
