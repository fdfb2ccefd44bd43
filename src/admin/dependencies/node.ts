// package-json-scan/1: package.json against the imports of the repo's TypeScript sources and the installed node_modules.
import { existsSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { tsImports } from './ts-imports.js'
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
  let manifest: Partial<Record<DependencyField, Record<string, string>>> = {}
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

  // Sources: src/ is what runs; tests, scripts and tool configs are development-only. A deployed tree without
  // TypeScript sources (the Docker image) is analysed from its compiled output instead.
  const fromSource = listFiles(rootDir, ['.ts', '.mts', '.cts'], 'src')
  const runtimeScan = fromSource.files.length > 0 ? fromSource : listFiles(rootDir, ['.js', '.mjs'], 'dist/src')
  const devFiles = [
    ...listFiles(rootDir, ['.ts', '.mts'], 'test').files,
    ...listFiles(rootDir, ['.ts', '.mts'], 'scripts').files,
    ...['vitest.config.ts'].filter((f) => existsSync(join(rootDir, f))),
  ]
  const isDevFile = (file: string) => /\.test\.[mc]?[tj]s$/.test(file) || /(^|\/)(fixtures|__tests__)\//.test(file)
  const files = [
    ...runtimeScan.files.map((file) => ({ file, scope: isDevFile(file) ? ('dev' as const) : ('runtime' as const) })),
    ...devFiles.map((file) => ({ file, scope: 'dev' as const })),
  ]

  const usage = new Map<string, Usage>()
  for (const { file, scope } of files) {
    let source: string
    try {
      source = readFileSync(join(rootDir, file), 'utf8')
    } catch {
      continue
    }
    for (const imp of tsImports(source)) {
      const target = packageOf(imp.specifier)
      if (target.kind !== 'package') continue
      const u = usage.get(target.name) ?? { sites: [], runtimeValue: false, runtimeStatic: false, typeOnlyEverywhere: true, scopes: new Set() }
      u.sites.push({ file, line: imp.line })
      u.scopes.add(scope)
      if (!imp.typeOnly) u.typeOnlyEverywhere = false
      if (scope === 'runtime' && !imp.typeOnly) {
        u.runtimeValue = true
        if (!imp.dynamic) u.runtimeStatic = true
      }
      usage.set(target.name, u)
    }
  }

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
    const where = u.sites.slice(0, 5).map((s) => `${s.file}:${s.line}`).join(', ') + (u.sites.length > 5 ? ` and ${u.sites.length - 5} more` : '')
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
      book.add(name, `a devDependency imported by runtime code at ${where}: \`npm prune --omit=dev\` removes it from production installs`, name)
    }
    if (!present) {
      if (critical) {
        missingInEnvironment.push(name)
        book.add(name, `not installed: the runtime import at ${where} fails when the module loads`, name, true)
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
    scanned: { files: files.map((f) => f.file), truncated: runtimeScan.truncated },
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
    sources: {
      builtins: 'node:module builtinModules of the running Node.js',
      resolution: 'node_modules/<name>/package.json looked up from the repo root upwards (Node.js module resolution folders)',
      note: 'packages used only through their binaries or tool configs (tsc, tsx, vitest) are not visible to an import scan',
    },
  }
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
