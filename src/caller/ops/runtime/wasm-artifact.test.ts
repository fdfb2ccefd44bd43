import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../../version.js'
import { loadKernelArtifact, WAT_SOURCE_PATH } from './wasm-artifact.js'
import { ensureWasmBuilt } from '../../../../scripts/build-wasm.js'

const dir = mkdtempSync(join(tmpdir(), 'ncm-wasm-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const rel = (name: string) => relative(REPO_ROOT, join(dir, name))

describe('loadKernelArtifact', () => {
  it('reads the built module', async () => {
    copyFileSync(await ensureWasmBuilt(), join(dir, 'built.wasm'))
    const artifact = await loadKernelArtifact({ wasm: rel('built.wasm'), wat: rel('absent.wat') })
    expect(artifact).toMatchObject({ source: rel('built.wasm'), reason: null })
    expect(artifact.bytes!.byteLength).toBeGreaterThan(8)
  })

  it('compiles the WAT source when the build output is missing (wabt is installed here)', async () => {
    const artifact = await loadKernelArtifact({ wasm: rel('missing.wasm'), wat: WAT_SOURCE_PATH })
    expect(artifact.bytes).not.toBeNull()
    expect(artifact.source).toMatch(/compiled at load/)
  })

  it('gives no bytes and a reason when neither can be had', async () => {
    const artifact = await loadKernelArtifact({ wasm: rel('missing.wasm'), wat: rel('missing.wat') })
    expect(artifact).toMatchObject({ bytes: null, source: null, sha256: null })
    expect(artifact.reason).toMatch(/npm run build/)
  })

  it('refuses a file that is not a valid module', async () => {
    writeFileSync(join(dir, 'junk.wasm'), 'not wasm at all')
    const artifact = await loadKernelArtifact({ wasm: rel('junk.wasm'), wat: WAT_SOURCE_PATH })
    expect(artifact.bytes).toBeNull()
    expect(artifact.reason).toMatch(/not a valid WebAssembly module/)
  })
})
