// Compiles src/engines/race/kernels.wat into build/wasm/kernels.wasm (part of `npm run build`; tests call ensureWasmBuilt).
// Usage: npx tsx scripts/build-wasm.ts
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { compileWat } from '../src/engines/race/compile-wat.js'
import { REPO_ROOT } from '../src/version.js'

export const WAT_SOURCE = join(REPO_ROOT, 'src', 'engines', 'race', 'kernels.wat')
export const WASM_ARTIFACT = join(REPO_ROOT, 'build', 'wasm', 'kernels.wasm')

export async function buildWasm(): Promise<{ path: string; bytes: number }> {
  const binary = await compileWat(readFileSync(WAT_SOURCE, 'utf8'), 'kernels.wat')
  mkdirSync(dirname(WASM_ARTIFACT), { recursive: true })
  // Write-then-rename: parallel test workers may build at the same time and must never read half a file.
  const partial = `${WASM_ARTIFACT}.${process.pid}.${Date.now()}.partial`
  writeFileSync(partial, binary)
  renameSync(partial, WASM_ARTIFACT)
  return { path: WASM_ARTIFACT, bytes: binary.byteLength }
}

const mtimeOf = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return null
  }
}

/** Builds the artifact when it is missing or older than its source; returns its path. */
export async function ensureWasmBuilt(): Promise<string> {
  const built = mtimeOf(WASM_ARTIFACT)
  if (built === null || built < mtimeOf(WAT_SOURCE)!) await buildWasm()
  return WASM_ARTIFACT
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { path, bytes } = await buildWasm()
  console.log(`wasm: ${relative(REPO_ROOT, WAT_SOURCE)} → ${relative(REPO_ROOT, path)} (${bytes} bytes)`)
}
