// package-json-scan/1: package.json against the imports of the repo's TypeScript sources and the installed node_modules.
import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { tsImports, type TsImport } from './ts-imports.js'
import { listFiles } from './walk.js'
import { AdvisoryBook, type AnalysedModule, type DependencySummary } from './types.js'

export const NODE_ALGORITHM = 'package-json-scan/1'

type DependencyField = 'dependencies' | 'devDependencies' | 'peerDependencies' | 'optionalDependencies'
const FIELDS: DependencyField[] = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']

const BUILTINS = new Set(builtinModules)

/** The package a bare specifier names (`@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`), or null when it is not one. */
export function packageOf(specifier: string): { kind: 'package'; name: string } | { kind: 'builtin' | 'local' | 'other' } {
  if (specifier.startsWith('node:')) return { kind: 'builtin' }
  if (specifier.startsWith('.') || specifier.startsWith('/')) return { kind: 'local' }
  // `#internal` subpath imports and URL-like specifiers (data:, http:) are not packages.
  if (specifier.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return { kind: 'other' }
  const parts = specifier.split('/')
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
  if (BUILTINS.has(name) || BUILTINS.has(specifier)) return { kind: 'builtin' }
  return { kind: 'package', name }
}

/** DefinitelyTyped's name for a package: `@types/x`, `@types/scope__x`. */
export const typesPackageOf = (name: string) => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`

export interface NodeAnalysisOptions {
  rootDir: string
  /** Whether a package is installed where the app resolves it from; defaults to a node_modules walk from rootDir. */
  installed?: (name: string) => boolean
}

interface Usage {
  sites: AnalysedModule['sites']
  runtimeSites: AnalysedModule['sites']
  runtimeValue: boolean
  runtimeStatic: boolean
  typeOnlyEverywhere: boolean
  scopes: Set<'runtime' | 'dev'>
}

export async function analyseNode(options: NodeAnalysisOptions): Promise<DependencySummary> {
  const { rootDir } = options
  const installed = options.installed ?? ((name: string) => isInstalled(rootDir, name))
  const manifestPath = join(rootDir, 'package.json')
  const book = new AdvisoryBook()
  const { manifest, exists, declaredIn, declared } = readManifest(manifestPath, book)
  const { parsed, runtimeScan, entries, runtime } = await scanSources(rootDir, manifest)
  const usage = usageByPackage(parsed, runtime)
  const names = [...usage.keys()].sort()
  const modules: AnalysedModule[] = []
  const missingInManifest: string[] = []
  const missingInEnvironment: string[] = []
  const advisoryMissing: string[] = []
  const toAdd = { runtime: new Set<string>(), dev: new Set<string>() }
  for (const name of names) {
    const u = usage.get(name)!
    const typesName = typesPackageOf(name)
    const field = declaredIn.get(name) ?? (u.typeOnlyEverywhere ? declaredIn.get(typesName) : undefined)
    const present = installed(name) || (u.typeOnlyEverywhere && installed(typesName))
    const critical = u.runtimeStatic
    const where = sitesText(u.sites)
    modules.push({
      module: name,
      package: field && !declaredIn.has(name) ? typesName : name,
      mapping: field ? `package.json ${field}` : 'same-name',
      declared: field !== undefined,
      importable: present,
      critical,
      sites: u.sites,
    })
    if (!field) {
      missingInManifest.push(name)
      ;(u.runtimeValue ? toAdd.runtime : toAdd.dev).add(name)
      book.add(name, `imported at ${where} but not declared in package.json`, name)
    } else if (field === 'devDependencies' && u.runtimeValue) {
      book.add(name, u.runtimeStatic
        ? `a devDependency imported by runtime code at ${sitesText(u.runtimeSites)}: \`npm prune --omit=dev\` removes it, so a production install fails to load that module`
        : `a devDependency imported dynamically by runtime code at ${sitesText(u.runtimeSites)}: in a production install (dev dependencies pruned) that import fails and the caller's fallback runs`, name)
    }
    if (!present) {
      if (critical) {
        missingInEnvironment.push(name)
        book.add(name, `not installed: the runtime import at ${sitesText(u.runtimeSites)} fails when the module loads`, name, true)
      } else {
        advisoryMissing.push(name)
        const why = u.runtimeValue ? 'only imported dynamically by runtime code' : u.typeOnlyEverywhere ? 'only type imports' : 'only imported by tests and scripts'
        book.add(name, `not installed (${why}, so the server starts without it)`, name)
      }
    }
  }
  const imported = new Set(names.flatMap((n) => [n, typesPackageOf(n)]))
  const unused = [...declaredIn.keys()].filter((n) => !imported.has(n)).sort()

  const autofix = [...new Set([...toAdd.runtime, ...toAdd.dev, ...missingInEnvironment, ...advisoryMissing])].sort()
  const commands: string[] = []
  if (toAdd.runtime.size > 0) commands.push(`npm install ${[...toAdd.runtime].sort().join(' ')}`)
  if (toAdd.dev.size > 0) commands.push(`npm install --save-dev ${[...toAdd.dev].sort().join(' ')}`)
  if (missingInEnvironment.length + advisoryMissing.length > 0 && commands.length === 0) commands.push('npm ci')
  const advisories = book.list()
  return {
    algorithm: NODE_ALGORITHM,
    status: missingInEnvironment.length > 0 || !exists ? 'fail' : advisories.length > 0 ? 'warn' : 'pass',
    manifest: { path: 'package.json', exists, files_read: exists ? ['package.json'] : [] },
    scanned: { files: [...parsed.keys()], truncated: runtimeScan.truncated },
    declared,
    modules,
    missing_in_requirements: missingInManifest,
    missing_in_environment: missingInEnvironment,
    advisory_missing_in_environment: advisoryMissing,
    declared_not_imported: unused,
    autofix_packages: autofix,
    autofix_command: commands.length > 0 ? commands.join(' && ') : null,
    advisories,
    environment: { checked: true, interpreter: `Node.js ${process.version}`, error: null },
    runtime: { entry_points: entries, reachable_files: runtime.size },
    sources: {
      builtins: 'node:module builtinModules of the running Node.js',
      resolution: 'node_modules/<name>/package.json looked up from the repo root upwards (Node.js module resolution folders)',
      note: 'packages used only through their binaries or tool configs (tsc, tsx, vitest) are not visible to an import scan',
    },
  }
}

type Manifest = Partial<Record<DependencyField, Record<string, string>>>

/** package.json's declared dependencies (the first field declaring a name wins); an unreadable file is a critical finding. */
function readManifest(manifestPath: string, book: AdvisoryBook) {
  let manifest: Manifest = {}
  let exists = true
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as typeof manifest
  } catch (err) {
    exists = false
    book.add('package.json', `package.json cannot be read: ${(err as Error).message.split('\n')[0]}`, null, true)
  }
  const declaredIn = new Map<string, DependencyField>()
  const declared: DependencySummary['declared'] = []
  for (const field of FIELDS) {
    for (const [name, specifier] of Object.entries(manifest[field] ?? {})) {
      if (!declaredIn.has(name)) declaredIn.set(name, field)
      declared.push({ name, specifier, file: 'package.json', scope: field })
    }
  }

  return { manifest, exists, declaredIn, declared }
}

/**
 * Every source parsed for its imports and path literals, and which files the running process reaches. Files are read
 * one by one asynchronously: the server runs this at start, and each read gives the event loop a turn between
 * tokenizing files (the whole scan, ~0.5 s of CPU, held the loop in one piece).
 */
async function scanSources(rootDir: string, manifest: Manifest) {
  // Sources: what the process loads is what is reachable from its entry points (package.json bin/main/start, and
  // files referred to by path such as the mill's worker); tests, test helpers, scripts and tool configs are
  // development-only. A deployed tree without TypeScript sources (the Docker image) is analysed from its build output.
  const fromSource = listFiles(rootDir, ['.ts', '.mts', '.cts'], 'src')
  const compiled = fromSource.files.length === 0
  const runtimeScan = compiled ? listFiles(rootDir, ['.js', '.mjs'], 'dist/src') : fromSource
  const devFiles = [
    ...listFiles(rootDir, ['.ts', '.mts'], 'test').files,
    ...listFiles(rootDir, ['.ts', '.mts'], 'scripts').files,
    ...['vitest.config.ts'].filter((f) => existsSync(join(rootDir, f))),
  ]
  const parsed = new Map<string, TsImport[]>()
  const refs = new Map<string, string[]>()
  const sourceFiles = new Set(runtimeScan.files)
  for (const file of [...runtimeScan.files, ...devFiles]) {
    let source: string
    try {
      source = await readFile(join(rootDir, file), 'utf8')
    } catch {
      continue
    }
    parsed.set(file, tsImports(source))
    refs.set(file, pathLiterals(source))
  }
  const entries = entryPoints(manifest, sourceFiles, compiled)
  const runtime = reachable(entries.length > 0 ? entries : [...sourceFiles].filter((f) => !isTestFile(f)), parsed, refs, sourceFiles)
  return { parsed, runtimeScan, entries, runtime }
}

/** Each imported package: where, whether runtime code imports it (statically or not) and whether only as types. */
function usageByPackage(parsed: Map<string, TsImport[]>, runtime: Set<string>): Map<string, Usage> {
  const usage = new Map<string, Usage>()
  for (const [file, imports] of parsed) {
    const scope = runtime.has(file) ? ('runtime' as const) : ('dev' as const)
    for (const imp of imports) {
      const target = packageOf(imp.specifier)
      if (target.kind !== 'package') continue
      const u = usage.get(target.name) ?? { sites: [], runtimeSites: [], runtimeValue: false, runtimeStatic: false, typeOnlyEverywhere: true, scopes: new Set() }
      u.sites.push({ file, line: imp.line })
      u.scopes.add(scope)
      if (!imp.typeOnly) u.typeOnlyEverywhere = false
      if (scope === 'runtime' && !imp.typeOnly) {
        u.runtimeValue = true
        u.runtimeSites.push({ file, line: imp.line })
        if (!imp.dynamic) u.runtimeStatic = true
      }
      usage.set(target.name, u)
    }
  }
  return usage
}

/** Node's lookup: node_modules/<name> in the folder and each parent. */
export function isInstalled(rootDir: string, name: string): boolean {
  let dir = rootDir
  for (let i = 0; i < 64; i++) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true
    const parent = dirname(dir)
    if (parent === dir) return false
    dir = parent
  }
  return false
}

const sitesText = (sites: AnalysedModule['sites']) =>
  sites.slice(0, 5).map((s) => `${s.file}:${s.line}`).join(', ') + (sites.length > 5 ? ` and ${sites.length - 5} more` : '')

const isTestFile = (file: string) => /\.test\.[mc]?[tj]s$/.test(file) || /(^|\/)(fixtures|__tests__)\//.test(file)

/** Relative paths written as string literals (`new URL('./worker.js', import.meta.url)`): files loaded by path. */
function pathLiterals(source: string): string[] {
  const out: string[] = []
  for (const match of source.matchAll(/['"`](\.{1,2}\/[\w./-]+\.(?:[mc]?[tj]s))['"`]/g)) out.push(match[1]!)
  return out
}

/** The process's entry points from package.json (`bin`, `main`, the `start` script), as files of the scanned tree. */
export function entryPoints(manifest: Record<string, unknown>, files: ReadonlySet<string>, compiled: boolean): string[] {
  const candidates: string[] = []
  const bin = manifest.bin
  if (typeof bin === 'string') candidates.push(bin)
  else if (bin && typeof bin === 'object') candidates.push(...Object.values(bin as Record<string, string>))
  if (typeof manifest.main === 'string') candidates.push(manifest.main)
  const start = (manifest.scripts as Record<string, string> | undefined)?.start
  if (start) candidates.push(...(start.match(/[\w./-]+\.[mc]?js\b/g) ?? []))
  const out = new Set<string>()
  for (const raw of candidates) {
    const path = raw.replace(/^\.\//, '')
    // dist/src/x.js is built from src/x.ts
    const source = compiled ? path : path.replace(/^dist\//, '').replace(/\.([mc]?)js$/, '.$1ts')
    if (files.has(source)) out.add(source)
  }
  return [...out].sort()
}

function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | null {
  const base = join(dirname(from), specifier).split('\\').join('/')
  const stem = base.replace(/\.([mc]?)[tj]s$/, '')
  for (const candidate of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.js`, `${stem}.mjs`, `${base}/index.ts`, `${base}/index.js`]) {
    if (files.has(candidate)) return candidate
  }
  return null
}

/** Files reachable from the entries through value imports (type-only imports are erased) and path literals. */
function reachable(entries: string[], parsed: Map<string, TsImport[]>, refs: Map<string, string[]>, files: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>()
  const queue = [...entries]
  while (queue.length > 0 && seen.size < 10_000) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const next = [
      ...(parsed.get(file) ?? []).filter((i) => !i.typeOnly && packageOf(i.specifier).kind === 'local').map((i) => i.specifier),
      ...(refs.get(file) ?? []),
    ]
    for (const specifier of next) {
      const target = resolveRelative(file, specifier, files)
      if (target && !seen.has(target)) queue.push(target)
    }
  }
  return seen
}
