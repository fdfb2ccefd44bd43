// The race engine's public face: kernels, the runner, WASM detection.
export { RACE_KERNELS, IMPLEMENTATIONS, runRace } from './race.js'
export type { RaceKernel, Implementation, RaceResult, KernelRace, ImplementationResult, RaceOptions } from './race.js'
export { detectWasm, type WasmSupport } from './detect.js'
export { generateBytes } from './operands.js'
