// `npm run build` (and `npm start`'s prestart): rebuilds only what changed. Plain JavaScript so that an
// up-to-date tree costs one node start and TypeScript's own up-to-date check, not a TypeScript loader.
// The WebAssembly kernels are compiled only when their artifact is missing or older than a file that makes it;
// TypeScript runs in build mode (`tsc -b`), which skips the emit when dist's build info is newer than every source.
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const WASM_ARTIFACT = join(root, 'build', 'wasm', 'kernels.wasm')
const WASM_INPUTS = ['src/engines/race/kernels.wat', 'src/engines/race/compile-wat.ts', 'scripts/build-wasm.ts'].map((p) => join(root, p))
const TS_BUILD_INFO = join(root, 'dist', 'tsconfig.build.tsbuildinfo')
/** The `ncm` binary as one file: Node resolved and read ~310 modules to start it (1.05 s for `ncm --help`, 0.65 s bundled). */
const CLI_BUNDLE = join(root, 'dist', 'ncm.mjs')

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return null
  }
}

/** True when the artifact is missing or older than any of its inputs. */
function stale(artifact, inputs) {
  const built = mtime(artifact)
  return built === null || inputs.some((input) => (mtime(input) ?? Infinity) > built)
}

const env = { ...process.env, PATH: [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter) }
const run = (command, args) => {
  const { status, error } = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' })
  if (error) throw error
  if (status !== 0) process.exit(status ?? 1)
}

if (stale(WASM_ARTIFACT, WASM_INPUTS)) run('tsx', ['scripts/build-wasm.ts'])
else console.log('build: build/wasm/kernels.wasm is up to date')
run('tsc', ['-b', 'tsconfig.build.json'])
if (stale(CLI_BUNDLE, [TS_BUILD_INFO, join(root, 'package-lock.json')])) {
  // Bundled from the compiled JavaScript; `require` for the CommonJS dependencies' own requires of Node's modules.
  run('esbuild', ['dist/src/cli/bin.js', '--bundle', '--platform=node', '--format=esm', '--log-level=warning',
    `--outfile=${CLI_BUNDLE}`, '--banner:js=import { createRequire as bundleRequire } from \'node:module\'; const require = bundleRequire(import.meta.url);'])
} else console.log('build: dist/ncm.mjs is up to date')
