import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { useTempTrees } from './test-tree.js'
import { analysePython } from './python.js'
import { probePython, type PythonProbe } from './python-env.js'
import { distributionOf, normalizeDistribution } from './python-import-map.js'
import { PYTHON_STDLIB } from './python-stdlib.js'

const tree = useTempTrees('ncm-py-')

/** A stand-in interpreter that knows exactly these modules. */
const fakePython = (installed: string[]) => async (modules: readonly string[]): Promise<PythonProbe> => ({
  version: 'Python 3.11.7',
  importable: Object.fromEntries(modules.map((m) => [m, installed.includes(m)])),
  error: null,
})
const noPython = async (): Promise<PythonProbe> => ({ version: null, importable: {}, error: 'python3 is not installed on this host' })

const hasPython = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

describe('import names and distributions', () => {
  it('normalises per PEP 503 and maps documented import names', () => {
    expect(normalizeDistribution('Foo__Bar.Baz-qux')).toBe('foo-bar-baz-qux')
    expect(distributionOf('yaml')).toEqual({ distribution: 'PyYAML', rule: 'pipreqs-mapping' })
    expect(distributionOf('requests')).toEqual({ distribution: 'requests', rule: 'same-name' })
    expect(PYTHON_STDLIB.has('json')).toBe(true)
    expect(PYTHON_STDLIB.has('tomllib')).toBe(true)
    expect(PYTHON_STDLIB.has('requests')).toBe(false)
  })
})

describe('analysePython', () => {
  const scripts = {
    'scripts/tool.py': [
      'import json, os.path',
      'import helpers',
      'from pkg.sub import thing',
      'import yaml',
      'import requests',
      'import rich',
      'import absent_hard',
      'try:',
      '    import absent_soft',
      'except ImportError:',
      '    absent_soft = None',
    ].join('\n'),
    'scripts/helpers.py': 'import requests\n',
    'scripts/pkg/__init__.py': '',
    'scripts/pkg/sub.py': 'from . import x\n',
  }

  it('separates stdlib, local, declared, undeclared and missing modules', async () => {
    const root = tree({
      ...scripts,
      'requirements.txt': 'pyyaml>=6  # declared under its PEP 503 name\nRequests[socks]==2.31\nabsent-hard\nabsent_soft\nunused-dist\nasyncio\n',
    })
    const summary = await analysePython({ rootDir: root, probe: fakePython(['yaml', 'requests', 'rich']) })
    expect(summary.manifest).toEqual({ path: 'requirements.txt', exists: true, files_read: ['requirements.txt'] })
    expect(summary.scanned.files).toEqual(['scripts/helpers.py', 'scripts/pkg/__init__.py', 'scripts/pkg/sub.py', 'scripts/tool.py'])
    expect(summary.modules.map((m) => [m.module, m.package, m.declared, m.importable, m.critical])).toEqual([
      ['absent_hard', 'absent_hard', true, false, true],
      ['absent_soft', 'absent_soft', true, false, false],
      ['requests', 'requests', true, true, true],
      ['rich', 'rich', false, true, true],
      ['yaml', 'PyYAML', true, true, true],
    ])
    expect(summary.missing_in_requirements).toEqual(['rich'])
    expect(summary.missing_in_environment).toEqual(['absent_hard'])
    expect(summary.advisory_missing_in_environment).toEqual(['absent_soft'])
    expect(summary.declared_not_imported).toEqual(['unused-dist'])
    expect(summary.autofix_packages).toEqual(['absent_hard', 'absent_soft', 'rich'])
    expect(summary.autofix_command).toBe('python3 -m pip install absent_hard absent_soft rich')
    expect(summary.status).toBe('fail')
    const byModule = Object.fromEntries(summary.advisories.map((a) => [a.module, a]))
    expect(Object.keys(byModule)).toEqual(['absent_hard', 'absent_soft', 'asyncio', 'rich', 'unused-dist'])
    expect(byModule.absent_hard).toMatchObject({ critical: true, recommended_package: 'absent_hard' })
    expect(byModule.absent_hard!.detail).toMatch(/unguarded import at scripts\/tool\.py:7 fails/)
    expect(byModule.rich).toMatchObject({ critical: false, recommended_package: 'rich' })
    expect(byModule.asyncio!.detail).toMatch(/part of the Python standard library/)
    expect(byModule['unused-dist']!.detail).toMatch(/no \*\.py file imports it/)
    expect(summary.environment).toEqual({ checked: true, interpreter: 'Python 3.11.7', error: null })
  })

  it('lists each module once in the advisories, with every finding about it', async () => {
    const root = tree({ 'a.py': 'import lonely\n', 'b.py': 'import lonely\n', 'requirements.txt': '\n' })
    const summary = await analysePython({ rootDir: root, probe: fakePython([]) })
    expect(summary.advisories).toHaveLength(1)
    expect(summary.advisories[0]).toMatchObject({ module: 'lonely', critical: true })
    expect(summary.advisories[0]!.findings).toHaveLength(2)
    expect(summary.modules[0]!.sites).toEqual([{ file: 'a.py', line: 1 }, { file: 'b.py', line: 1 }])
  })

  it('turns every environment check into an advisory when there is no python3', async () => {
    const root = tree({ 'tool.py': 'import requests\nimport yaml\n', 'requirements.txt': 'requests\nPyYAML\n' })
    const summary = await analysePython({ rootDir: root, probe: noPython })
    expect(summary.missing_in_environment).toEqual([])
    expect(summary.advisory_missing_in_environment).toEqual(['requests', 'yaml'])
    expect(summary.advisories.map((a) => a.detail)).toEqual([
      'importability not checked: python3 is not installed on this host',
      'importability not checked: python3 is not installed on this host',
    ])
    expect(summary.status).toBe('warn')
    expect(summary.environment).toEqual({ checked: false, interpreter: null, error: 'python3 is not installed on this host' })
  })

  it('reports an unreadable -r include as an advisory for `_r <path>` recommending `-r <path>`', async () => {
    const root = tree({ 'tool.py': 'import requests\n', 'requirements.txt': 'requests\n-r ops/extra.txt\n' })
    const summary = await analysePython({ rootDir: root, probe: fakePython(['requests']) })
    expect(summary.advisories).toEqual([
      expect.objectContaining({ module: '_r ops/extra.txt', recommended_package: '-r ops/extra.txt', critical: false }),
    ])
    expect(summary.status).toBe('warn')
  })

  it('reports a missing requirements.txt the same way, and passes a clean tree', async () => {
    const missing = await analysePython({ rootDir: tree({ 'x.py': 'import json\n' }), probe: fakePython([]) })
    expect(missing.advisories).toEqual([expect.objectContaining({ module: '_r requirements.txt', recommended_package: '-r requirements.txt' })])
    const clean = await analysePython({ rootDir: tree({ 'x.py': 'import requests\n', 'requirements.txt': 'requests\n' }), probe: fakePython(['requests']) })
    expect(clean).toMatchObject({ status: 'pass', advisories: [], missing_in_requirements: [], missing_in_environment: [] })
  })

  it('does not scan dependency, build or dot folders', async () => {
    const root = tree({
      'ok.py': 'import json\n',
      'node_modules/x/bad.py': 'import never1\n',
      '.venv/lib/bad.py': 'import never2\n',
      'dist/bad.py': 'import never3\n',
      'requirements.txt': '',
    })
    const summary = await analysePython({ rootDir: root, probe: fakePython([]) })
    expect(summary.scanned.files).toEqual(['ok.py'])
    expect(summary.modules).toEqual([])
  })
})

describe.skipIf(!hasPython)('probePython (needs python3 on the host)', () => {
  it('asks the real interpreter once for all modules', async () => {
    const probe = await probePython(['json', 'ncm_surely_not_installed_xyz'])
    expect(probe.error).toBeNull()
    expect(probe.version).toMatch(/^Python 3\.\d+\.\d+$/)
    expect(probe.importable).toEqual({ json: true, ncm_surely_not_installed_xyz: false })
  })
})

describe('probePython without an interpreter', () => {
  it('says the command is not installed', async () => {
    const probe = await probePython(['json'], 'ncm-no-such-python3')
    expect(probe).toEqual({ version: null, importable: {}, error: 'ncm-no-such-python3 is not installed on this host' })
  })
})
