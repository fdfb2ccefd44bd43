// The WASM race: the same kernels in WebAssembly and TypeScript, run alternately on the same operands and timed.
import { dotOperands } from './operands.js'
import { crc32, dotF64, fnv1a32 } from './ts-kernels.js'
import { loadWasmKernels } from './wasm-kernels.js'

export const RACE_KERNELS = ['crc32', 'fnv1a32', 'dot_f64'] as const
export type RaceKernel = (typeof RACE_KERNELS)[number]
export const IMPLEMENTATIONS = ['wasm', 'ts'] as const
export type Implementation = (typeof IMPLEMENTATIONS)[number]

export interface RaceOptions {
  bytes: Uint8Array
  rounds: number
  kernels: readonly RaceKernel[]
  /** The compiled kernels.wat; null races TypeScript alone (and names no winner). */
  wasm: Uint8Array | null
  /** A monotonic clock in nanoseconds (process.hrtime.bigint in the mill). */
  timer: () => bigint
  /** True once the time budget is spent; checked between rounds, after the first. */
  expired: () => boolean
}

export interface ImplementationResult {
  implementation: Implementation
  /** u32 kernels: 8 hex digits; dot_f64: the shortest decimal that round-trips. */
  output: string
  samples: number
  median_ns_per_byte: number
  min_ns_per_byte: number
  max_ns_per_byte: number
  /** Every run gave the same output. */
  consistent: boolean
}

export interface KernelRace {
  kernel: RaceKernel
  /** Bytes the kernel reads per run: the input for the hashes, 16 per element (two float64 vectors) for dot_f64. */
  operand_bytes: number
  implementations: ImplementationResult[]
  /** All implementations gave the same output in every run. */
  agreed: boolean
  /** Lowest median; null when only one implementation ran or outputs disagreed. */
  winner: Implementation | null
  /** Slower median ÷ faster median. */
  speedup: number | null
}

export interface RaceResult {
  rounds_requested: number
  rounds_completed: number
  stopped_by_deadline: boolean
  kernels: KernelRace[]
  all_agreed: boolean
  /** Per implementation: geometric mean of its median ns/byte over the kernels raced. */
  geomean_ns_per_byte: Partial<Record<Implementation, number>>
  winner: Implementation | null
}

type Run = () => number | string

const hex32 = (n: number) => n.toString(16).padStart(8, '0')

function runnersFor(options: RaceOptions): Record<RaceKernel, Partial<Record<Implementation, Run>>> {
  const { bytes } = options
  const { x, y } = dotOperands(bytes)
  const wasm = options.wasm ? loadWasmKernels(options.wasm, bytes, x, y) : null
  return {
    crc32: { ts: () => crc32(bytes), ...(wasm && { wasm: wasm.crc32 }) },
    fnv1a32: { ts: () => fnv1a32(bytes), ...(wasm && { wasm: wasm.fnv1a32 }) },
    dot_f64: { ts: () => dotF64(x, y), ...(wasm && { wasm: wasm.dotF64 }) },
  }
}

const format = (kernel: RaceKernel, value: number | string) =>
  kernel === 'dot_f64' ? String(value) : hex32(value as number)

function median(sorted: number[]): number {
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function runRace(options: RaceOptions): RaceResult {
  const runners = runnersFor(options)
  const kernels = [...new Set(options.kernels)]
  const operandBytes = (kernel: RaceKernel) => (kernel === 'dot_f64' ? 16 * options.bytes.length : options.bytes.length)
  const state = kernels.map((kernel) => {
    const impls = IMPLEMENTATIONS.filter((impl) => runners[kernel][impl] !== undefined)
    return {
      kernel,
      impls: impls.map((impl) => {
        const run = runners[kernel][impl]!
        const first = run() // warm-up, untimed; its output is the reference for every timed run
        return { impl, run, output: first, consistent: true, ns: [] as number[] }
      }),
    }
  })

  let completed = 0
  let stoppedByDeadline = false
  for (let round = 0; round < options.rounds; round++) {
    if (round > 0 && options.expired()) {
      stoppedByDeadline = true
      break
    }
    for (const k of state) {
      // Alternate who goes first, so neither side always runs on a cache the other warmed.
      const order = round % 2 === 0 ? k.impls : [...k.impls].reverse()
      for (const entry of order) {
        const t0 = options.timer()
        const out = entry.run()
        const t1 = options.timer()
        entry.ns.push(Number(t1 - t0))
        if (!Object.is(out, entry.output)) entry.consistent = false
      }
    }
    completed++
  }

  const races: KernelRace[] = state.map((k) => {
    const bytes = operandBytes(k.kernel)
    const implementations = k.impls.map((entry): ImplementationResult => {
      const perByte = entry.ns.map((ns) => ns / bytes).sort((p, q) => p - q)
      return {
        implementation: entry.impl,
        output: format(k.kernel, entry.output),
        samples: perByte.length,
        median_ns_per_byte: median(perByte),
        min_ns_per_byte: perByte[0]!,
        max_ns_per_byte: perByte[perByte.length - 1]!,
        consistent: entry.consistent,
      }
    })
    const agreed = k.impls.every((e) => e.consistent && Object.is(e.output, k.impls[0]!.output))
    const ranked = [...implementations].sort((p, q) => p.median_ns_per_byte - q.median_ns_per_byte)
    const canRank = agreed && ranked.length > 1
    return {
      kernel: k.kernel,
      operand_bytes: bytes,
      implementations,
      agreed,
      winner: canRank ? ranked[0]!.implementation : null,
      speedup: canRank && ranked[0]!.median_ns_per_byte > 0
        ? ranked[ranked.length - 1]!.median_ns_per_byte / ranked[0]!.median_ns_per_byte
        : null,
    }
  })

  const geomean: RaceResult['geomean_ns_per_byte'] = {}
  for (const impl of IMPLEMENTATIONS) {
    const medians = races.flatMap((r) => r.implementations.filter((i) => i.implementation === impl).map((i) => i.median_ns_per_byte))
    if (medians.length === races.length && medians.length > 0) {
      geomean[impl] = Math.exp(medians.reduce((s, m) => s + Math.log(Math.max(m, Number.MIN_VALUE)), 0) / medians.length)
    }
  }
  const allAgreed = races.every((r) => r.agreed)
  const contenders = IMPLEMENTATIONS.filter((impl) => geomean[impl] !== undefined)
  const winner = allAgreed && contenders.length > 1
    ? contenders.reduce((best, impl) => (geomean[impl]! < geomean[best]! ? impl : best))
    : null
  return {
    rounds_requested: options.rounds,
    rounds_completed: completed,
    stopped_by_deadline: stoppedByDeadline,
    kernels: races,
    all_agreed: allAgreed,
    geomean_ns_per_byte: geomean,
    winner,
  }
}
