// The file a mill worker runs. A build runs its own worker.js. Run from sources (the tests, `npm run dev`), a worker
// loaded every engine through a TypeScript loader, about a second of CPU per worker start; so the built worker is
// run instead whenever the build is at least as new as every source it is built from (`npm test` builds first), and
// the source under tsx otherwise.
import { readdirSync, statSync } from 'node:fs'
import { dirname, extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface WorkerFile {
  filename: string
  execArgv: string[]
}

const here = fileURLToPath(import.meta.url)

/** Sources the build compiles (tsconfig.build.json: src, less tests and test helpers). */
const isBuiltSource = (name: string): boolean =>
  name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts') && !name.split('/').pop()!.startsWith('test-')

function newestSourceMs(srcRoot: string): number {
  let newest = 0
  for (const name of readdirSync(srcRoot, { recursive: true, encoding: 'utf8' })) {
    if (isBuiltSource(name.replaceAll('\\', '/'))) newest = Math.max(newest, statSync(join(srcRoot, name)).mtimeMs)
  }
  return newest
}

const mtimeOrNull = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return null
  }
}

let chosen: WorkerFile | null = null

export function workerFile(): WorkerFile {
  if (chosen) return chosen
  if (extname(here) !== '.ts') return (chosen = { filename: fileURLToPath(new URL('./worker-entry.cjs', import.meta.url)), execArgv: [] })
  const srcRoot = dirname(dirname(here))
  const root = dirname(srcRoot)
  const built = join(root, 'dist', relative(root, dirname(here)), 'worker-entry.cjs')
  const buildMs = mtimeOrNull(join(root, 'dist', 'tsconfig.build.tsbuildinfo'))
  const fresh = isFreshBuild(buildMs, mtimeOrNull(built) !== null, () => newestSourceMs(srcRoot))
  return (chosen = fresh ? { filename: built, execArgv: [] } : { filename: fileURLToPath(new URL('./worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] })
}

/** A build to run: it exists, and no source it is built from changed after it (the sources are read only then). */
export const isFreshBuild = (buildMs: number | null, builtWorkerExists: boolean, newestSource: () => number): boolean =>
  buildMs !== null && builtWorkerExists && newestSource() <= buildMs
