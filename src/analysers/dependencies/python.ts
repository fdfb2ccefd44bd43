// requirements-scan/1: requirements.txt (with -r includes) against the imports of the repo's *.py files and the host's python3.
import { readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { parseRequirementsFile, type ReadText } from './requirements.js'
import { pythonImports } from './python-imports.js'
import { PYTHON_STDLIB, PYTHON_STDLIB_SOURCE } from './python-stdlib.js'
import { distributionOf, normalizeDistribution, PYTHON_IMPORT_MAP_SOURCE } from './python-import-map.js'
import { probePython, type PythonProbe } from './python-env.js'
import { listFiles } from './walk.js'
import { AdvisoryBook, type AnalysedModule, type DependencySummary } from './types.js'

export const PYTHON_ALGORITHM = 'requirements-scan/1'

export interface PythonAnalysisOptions {
  rootDir: string
  /** Relative to rootDir. */
  requirementsFile?: string
  /** Asks the environment which modules are importable; defaults to the host's python3. */
  probe?: (modules: readonly string[]) => Promise<PythonProbe>
  read?: ReadText
}

export async function analysePython(options: PythonAnalysisOptions): Promise<DependencySummary> {
  const { rootDir, requirementsFile = 'requirements.txt', read = (p) => readFileSync(p, 'utf8') } = options
  const probe = options.probe ?? ((modules) => probePython(modules))
  const parsed = parseRequirementsFile(join(rootDir, requirementsFile), rootDir, read)
  const book = new AdvisoryBook()

  const scan = listFiles(rootDir, ['.py'])
  // Local modules: any script or package folder of the repo shadows an installed distribution of that name.
  const local = new Set<string>()
  for (const file of scan.files) {
    local.add(basename(file, '.py'))
    for (let dir = dirname(file); dir !== '.' && dir !== ''; dir = dirname(dir)) local.add(basename(dir))
  }

  const byModule = new Map<string, { sites: AnalysedModule['sites']; hard: boolean }>()
  for (const file of scan.files) {
    let source: string
    try {
      source = read(join(rootDir, file))
    } catch {
      continue
    }
    for (const imp of pythonImports(source)) {
      if (PYTHON_STDLIB.has(imp.module) || local.has(imp.module) || imp.module === '__main__') continue
      const entry = byModule.get(imp.module) ?? { sites: [], hard: false }
      entry.sites.push({ file, line: imp.line })
      entry.hard ||= !imp.guarded
      byModule.set(imp.module, entry)
    }
  }

  const declaredNames = new Set(parsed.requirements.map((r) => r.normalized))
  const names = [...byModule.keys()].sort()
  const env = names.length > 0 ? await probe(names) : { version: null, importable: {}, error: null }
  const envChecked = names.length > 0 && env.error === null

  const modules: AnalysedModule[] = names.map((module) => {
    const { sites, hard } = byModule.get(module)!
    const { distribution, rule } = distributionOf(module)
    const declared = declaredNames.has(normalizeDistribution(distribution)) || declaredNames.has(normalizeDistribution(module))
    const importable = envChecked ? env.importable[module] === true : null
    return { module, package: distribution, mapping: rule, declared, importable, critical: hard, sites }
  })

  const missingInRequirements: string[] = []
  const missingInEnvironment: string[] = []
  const advisoryMissing: string[] = []
  for (const m of modules) {
    const where = m.sites.map((s) => `${s.file}:${s.line}`).join(', ')
    if (!m.declared) {
      missingInRequirements.push(m.module)
      book.add(m.module, `imported at ${where} but ${m.package} is not in ${parsed.root}`, m.package)
    }
    if (m.importable === false) {
      if (m.critical) {
        missingInEnvironment.push(m.module)
        book.add(m.module, `not importable by ${env.version}: the unguarded import at ${where} fails`, m.package, true)
      } else {
        advisoryMissing.push(m.module)
        book.add(m.module, `not importable by ${env.version}; every import of it is guarded (try/except), so the scripts run without it`, m.package)
      }
    } else if (m.importable === null) {
      advisoryMissing.push(m.module)
      book.add(m.module, `importability not checked: ${env.error}`, m.package)
    }
  }

  const imported = new Set(modules.flatMap((m) => [normalizeDistribution(m.package), normalizeDistribution(m.module)]))
  const unused: string[] = []
  for (const r of parsed.requirements) {
    if (PYTHON_STDLIB.has(r.name)) {
      book.add(r.name, `${r.file}:${r.line} declares ${r.name}, which is part of the Python standard library`, null)
    } else if (!imported.has(r.normalized)) {
      unused.push(r.name)
      book.add(r.name, `${r.file}:${r.line} declares ${r.name} but no *.py file imports it`, null)
    }
  }
  if (!parsed.exists) {
    const finding = scan.files.length > 0
      ? `${parsed.root} does not exist but the repo has ${scan.files.length} *.py file(s)`
      : `${parsed.root} does not exist (no *.py files either)`
    book.add(`_r ${parsed.root}`, finding, `-r ${parsed.root}`)
  }
  for (const problem of parsed.problems) {
    if (problem.kind === 'unreadable-include' || problem.kind === 'include-cycle') {
      book.add(`_r ${problem.include}`, problem.detail, problem.kind === 'unreadable-include' ? `-r ${problem.include}` : null)
    } else {
      book.add(`${problem.file}:${problem.line}`, problem.detail, null)
    }
  }

  const toInstall = modules.filter((m) => !m.declared || m.importable === false).map((m) => m.package)
  const autofix = [...new Set(toInstall)].sort()
  const advisories = book.list()
  return {
    algorithm: PYTHON_ALGORITHM,
    status: missingInEnvironment.length > 0 ? 'fail' : advisories.length > 0 ? 'warn' : 'pass',
    manifest: { path: parsed.root, exists: parsed.exists, files_read: parsed.files },
    scanned: scan,
    declared: parsed.requirements.map((r) => ({ name: r.name, specifier: r.specifier, file: r.file, line: r.line })),
    modules,
    missing_in_requirements: missingInRequirements,
    missing_in_environment: missingInEnvironment,
    advisory_missing_in_environment: advisoryMissing,
    declared_not_imported: unused,
    autofix_packages: autofix,
    autofix_command: autofix.length > 0 ? `python3 -m pip install ${autofix.map(shellQuote).join(' ')}` : null,
    advisories,
    environment: { checked: envChecked, interpreter: env.version, error: env.error },
    sources: {
      stdlib: PYTHON_STDLIB_SOURCE,
      import_map: PYTHON_IMPORT_MAP_SOURCE,
      normalisation: 'PEP 503',
    },
  }
}

const shellQuote = (s: string) => (/^[\w.@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
