// Finds the compiled race kernels: build/wasm/kernels.wasm from `npm run build`, or — where the build has not run
// and wabt (a dev dependency) is installed, as in tests and `npm run dev` — compiled from kernels.wat in memory.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { REPO_ROOT } from '../../../version.js'
import { compileWat } from '../../../engines/race/compile-wat.js'
import { detectWasm } from '../../../engines/race/detect.js'
import { wasmApi } from '../../../engines/race/wasm-api.js'

export const WASM_ARTIFACT_PATH = 'build/wasm/kernels.wasm'
export const WAT_SOURCE_PATH = 'src/engines/race/kernels.wat'

export interface KernelArtifact {
  bytes: Uint8Array | null
  /** Where the bytes came from (repo-relative), or null. */
  source: string | null
  sha256: string | null
  /** Why there are no bytes, or null. */
  reason: string | null
}

export interface ArtifactPaths {
  /** Repo-relative. */
  wasm: string
  wat: string
}

const DEFAULT_PATHS: ArtifactPaths = { wasm: WASM_ARTIFACT_PATH, wat: WAT_SOURCE_PATH }
let loaded: KernelArtifact | null = null

/** Cached once found at the default paths; a miss is retried on the next call (the build may have run since). */
export async function loadKernelArtifact(paths: ArtifactPaths = DEFAULT_PATHS): Promise<KernelArtifact> {
  const usual = paths === DEFAULT_PATHS
  if (usual && loaded) return loaded
  const found = await findArtifact(paths)
  if (usual && found.bytes) loaded = found
  return found
}

async function findArtifact(paths: ArtifactPaths): Promise<KernelArtifact> {
  const support = detectWasm()
  if (!support.webassembly || !support.simd) {
    return miss(`this runtime lacks ${support.webassembly ? 'WebAssembly SIMD' : 'WebAssembly'}, which the kernels need`)
  }
  let bytes: Uint8Array | null = null
  let source: string
  try {
    bytes = new Uint8Array(await readFile(join(REPO_ROOT, paths.wasm)))
    source = paths.wasm
  } catch {
    try {
      bytes = await compileWat(await readFile(join(REPO_ROOT, paths.wat), 'utf8'), 'kernels.wat')
      source = `${paths.wat} (compiled at load: ${paths.wasm} is missing)`
    } catch (err) {
      return miss(`${paths.wasm} is missing (run \`npm run build\`) and compiling ${paths.wat} failed: ${(err as Error).message}`)
    }
  }
  if (!wasmApi()!.validate(bytes)) return miss(`${source} is not a valid WebAssembly module; rebuild it with \`npm run build\``)
  return { bytes, source, sha256: createHash('sha256').update(bytes).digest('hex'), reason: null }
}

const miss = (reason: string): KernelArtifact => ({ bytes: null, source: null, sha256: null, reason })
