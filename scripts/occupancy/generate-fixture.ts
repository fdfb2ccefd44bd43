// Writes test/fixtures/occupancy/cases.json: occupancy cases answered by NVIDIA's cuda_occupancy.h itself.
//
// Usage: npx tsx scripts/occupancy/generate-fixture.ts [--header /usr/local/cuda-13.0/include/cuda_occupancy.h]
// Needs g++ and the CUDA header (no GPU, no CUDA runtime). The fixture is committed; tests read it without CUDA.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { OccupancyCaseInput, OccupancyFixture, OracleDeviceProps } from '../../src/engines/capacity/occupancy-fixture.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = join(HERE, '..', '..')
const OUT = join(REPO_ROOT, 'test', 'fixtures', 'occupancy', 'cases.json')
const SEED = 20_250_917
const RANDOM_CASES_PER_CC = 80

const headerArg = process.argv.indexOf('--header')
const HEADER = headerArg > 0 ? process.argv[headerArg + 1]! : '/usr/local/cuda-13.0/include/cuda_occupancy.h'

/** mulberry32: a small seeded PRNG, so the fixture is reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Props = OracleDeviceProps

function readProps(binary: string): Props[] {
  return execFileSync(binary, ['--props'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const v = line.trim().split(/\s+/).map(Number)
      return {
        cc: `${v[0]}.${v[1]}`,
        maxThreadsPerBlock: v[2]!,
        maxThreadsPerMultiprocessor: v[3]!,
        regsPerBlock: v[4]!,
        regsPerMultiprocessor: v[5]!,
        warpSize: v[6]!,
        sharedMemPerBlock: v[7]!,
        sharedMemPerMultiprocessor: v[8]!,
        sharedMemPerBlockOptin: v[9]!,
        reservedSharedMemPerBlock: v[10]!,
      }
    })
}

function casesFor(p: Props, rand: () => number): OccupancyCaseInput[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))
  const base = (over: Partial<OccupancyCaseInput>): OccupancyCaseInput => {
    const c: OccupancyCaseInput = {
      compute_capability: p.cc,
      threads_per_block: 256,
      registers_per_thread: 32,
      shared_mem_static_bytes: 0,
      shared_mem_dynamic_bytes: 0,
      carveout_percent: null,
      max_dynamic_shared_bytes: 0,
      block_barriers: 1,
      ...over,
    }
    if (over.max_dynamic_shared_bytes === undefined) c.max_dynamic_shared_bytes = c.shared_mem_dynamic_bytes
    return c
  }
  const out: OccupancyCaseInput[] = []
  // Edges, one dimension at a time around a plain kernel.
  for (const t of [1, 31, 32, 33, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1000, 1024, 1025]) {
    out.push(base({ threads_per_block: t }))
  }
  for (const r of [0, 1, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 232, 255, 256, 257]) {
    out.push(base({ registers_per_thread: r, threads_per_block: pick([64, 128, 256, 1024]) }))
  }
  const optinDynamic = p.sharedMemPerBlockOptin
  for (const dyn of [
    1, 127, 128, 129, 255, 256, 257, 1024, 8192, 16 * 1024, 32 * 1024, 48 * 1024 - p.reservedSharedMemPerBlock,
    48 * 1024, 48 * 1024 + 1, 64 * 1024, 96 * 1024, 99 * 1024, 100 * 1024, 163 * 1024, 164 * 1024, 227 * 1024,
    228 * 1024, optinDynamic - 1, optinDynamic, optinDynamic + 1,
  ]) {
    out.push(base({ shared_mem_dynamic_bytes: dyn, threads_per_block: pick([32, 128, 256]) }))
  }
  for (const st of [1, 1024, 4096, 16 * 1024, 47 * 1024, 48 * 1024]) {
    out.push(base({ shared_mem_static_bytes: st }))
  }
  for (const carve of [0, 1, 10, 25, 33, 50, 66, 75, 90, 99, 100]) {
    out.push(base({ carveout_percent: carve, shared_mem_dynamic_bytes: pick([0, 4096, 20_000, 40 * 1024, 70 * 1024]) }))
  }
  // The kernel's own dynamic limit: below the launch (refused) and well above it.
  out.push(base({ shared_mem_dynamic_bytes: 8192, max_dynamic_shared_bytes: 4096 }))
  out.push(base({ shared_mem_dynamic_bytes: 8192, max_dynamic_shared_bytes: p.sharedMemPerBlockOptin }))
  out.push(base({ shared_mem_dynamic_bytes: 40 * 1024, max_dynamic_shared_bytes: 60 * 1024 }))
  for (const bars of [0, 2, 3, 16]) out.push(base({ block_barriers: bars, threads_per_block: 32, registers_per_thread: 16 }))
  // Inputs the header itself rejects (CUDA_OCC_ERROR_INVALID_INPUT).
  out.push(base({ threads_per_block: 0 }), base({ carveout_percent: 101 }), base({ carveout_percent: -2 }))

  for (let i = 0; i < RANDOM_CASES_PER_CC; i++) {
    const threads = rand() < 0.6 ? 32 * int(1, 32) : int(1, 1100)
    const regs = rand() < 0.7 ? 8 * int(0, 32) : int(0, 260)
    const staticSmem = rand() < 0.5 ? 0 : int(0, 48 * 1024)
    const dynamic = rand() < 0.35 ? 0 : Math.floor(Math.exp(rand() * Math.log(240 * 1024)))
    const carveout = rand() < 0.5 ? null : int(0, 100)
    const maxDyn = rand() < 0.8 ? dynamic : int(0, p.sharedMemPerBlockOptin)
    const barriers = rand() < 0.85 ? 1 : int(0, 4)
    out.push(
      base({
        threads_per_block: threads,
        registers_per_thread: regs,
        shared_mem_static_bytes: staticSmem,
        shared_mem_dynamic_bytes: dynamic,
        carveout_percent: carveout,
        max_dynamic_shared_bytes: maxDyn,
        block_barriers: barriers,
      }),
    )
  }
  return out
}

function main(): void {
  const headerText = readFileSync(HEADER, 'utf8')
  const occMajor = /#define __CUDA_OCC_MAJOR__ (\d+)/.exec(headerText)?.[1]
  const occMinor = /#define __CUDA_OCC_MINOR__ (\d+)/.exec(headerText)?.[1]
  const work = mkdtempSync(join(tmpdir(), 'occ-oracle-'))
  try {
    const binary = join(work, 'oracle')
    execFileSync('g++', ['-O1', '-Wall', '-Werror', `-I${dirname(HEADER)}`, '-o', binary, join(HERE, 'oracle.cpp')], {
      stdio: 'inherit',
    })
    const compiler = execFileSync('g++', ['--version'], { encoding: 'utf8' }).split('\n')[0]
    const props = readProps(binary)
    const rand = prng(SEED)
    const inputs = props.flatMap((p) => casesFor(p, rand))
    const stdin = inputs
      .map((c) => {
        const [major, minor] = c.compute_capability.split('.')
        return [
          major, minor, c.threads_per_block, c.registers_per_thread, c.shared_mem_static_bytes,
          c.shared_mem_dynamic_bytes, c.carveout_percent ?? -1, c.max_dynamic_shared_bytes, c.block_barriers,
        ].join(' ')
      })
      .join('\n')
    const lines = execFileSync(binary, [], { input: `${stdin}\n`, encoding: 'utf8' }).trim().split('\n')
    if (lines.length !== inputs.length) throw new Error(`oracle answered ${lines.length} of ${inputs.length} cases`)
    const cases = inputs.map((input, i) => {
      const v = lines[i]!.trim().split(/\s+/).map(Number)
      return {
        input,
        expected: {
          status: v[0]!,
          active_blocks: v[1]!,
          limiting_factors: v[2]!,
          block_limit_regs: v[3]!,
          block_limit_shared_mem: v[4]!,
          block_limit_warps: v[5]!,
          block_limit_blocks: v[6]!,
          block_limit_barriers: v[7]!,
          block_limit_virtual: v[8]!,
          allocated_registers_per_block: v[9]!,
          allocated_shared_mem_per_block: v[10]!,
        },
      }
    })
    const fixture: OccupancyFixture = {
      description:
        'Answers of cudaOccMaxActiveBlocksPerMultiprocessor (NVIDIA cuda_occupancy.h) for generated kernel launches; ' +
        'INT_MAX (2147483647) means "no limit". Function attributes as the runtime derives them from cudaFuncAttributes ' +
        '(shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN, virtualResourceCount = 0); block_barriers as given.',
      generator: relative(REPO_ROOT, fileURLToPath(import.meta.url)),
      oracle: relative(REPO_ROOT, join(HERE, 'oracle.cpp')),
      header: {
        path: HEADER,
        sha256: createHash('sha256').update(headerText).digest('hex'),
        cuda_occ_version: `${occMajor}.${occMinor}`,
      },
      compiler,
      seed: SEED,
      devices: props,
      cases,
    }
    // One case per line: small enough to review, diff-friendly.
    const { cases: _cases, ...head } = fixture
    const body = JSON.stringify(head, null, 1).replace(/\n}$/, '')
    writeFileSync(OUT, `${body},\n "cases": [\n${cases.map((c) => `  ${JSON.stringify(c)}`).join(',\n')}\n ]\n}\n`)
    const ok = cases.filter((c) => c.expected.status === 0).length
    console.log(`wrote ${cases.length} cases (${ok} answered, ${cases.length - ok} errors) to ${relative(REPO_ROOT, OUT)}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

main()
