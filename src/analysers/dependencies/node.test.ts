import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempTrees } from './test-tree.js'
import { analyseNode, entryPoints, isInstalled, packageOf, typesPackageOf } from './node.js'

const tree = useTempTrees('ncm-node-')

describe('packageOf', () => {
  it('strips subpaths, keeps scopes, and knows builtins and local paths', () => {
    expect(packageOf('lodash/fp')).toEqual({ kind: 'package', name: 'lodash' })
    expect(packageOf('@scope/pkg/deep/file.js')).toEqual({ kind: 'package', name: '@scope/pkg' })
    expect(packageOf('node:fs/promises')).toEqual({ kind: 'builtin' })
    expect(packageOf('fs')).toEqual({ kind: 'builtin' })
    expect(packageOf('stream/web')).toEqual({ kind: 'builtin' })
    expect(packageOf('./local.js')).toEqual({ kind: 'local' })
    expect(packageOf('#internal')).toEqual({ kind: 'other' })
    expect(packageOf('data:text/javascript,1')).toEqual({ kind: 'other' })
    expect(typesPackageOf('@scope/pkg')).toBe('@types/scope__pkg')
  })
})

describe('entryPoints', () => {
  it('maps bin, main and the start script from dist/*.js onto the sources', () => {
    const files = new Set(['src/server.ts', 'src/cli/bin.ts', 'src/lib.ts'])
    const manifest = { bin: { x: 'dist/src/cli/bin.js' }, main: './dist/src/lib.js', scripts: { start: 'node --enable-source-maps dist/src/server.js' } }
    expect(entryPoints(manifest, files, false)).toEqual(['src/cli/bin.ts', 'src/lib.ts', 'src/server.ts'])
    expect(entryPoints({ scripts: { start: 'node dist/src/server.js' } }, new Set(['dist/src/server.js']), true)).toEqual(['dist/src/server.js'])
  })
})

describe('analyseNode', () => {
  const manifest = JSON.stringify({
    name: 'fixture',
    scripts: { start: 'node dist/src/server.js' },
    dependencies: { fastify: '^5', 'lodash': '^4', 'not-installed-runtime': '^1', 'lazy-missing': '^1' },
    devDependencies: { vitest: '^4', 'dev-at-runtime': '^1', '@types/only-types': '^1', 'fast-check': '^4' },
  })
  const files = {
    'package.json': manifest,
    'src/server.ts': "import Fastify from 'fastify'\nimport { helper } from './lib/helper.js'\nimport { readFileSync } from 'node:fs'\nimport path from 'path'\n",
    'src/lib/helper.ts': [
      "import fp from 'lodash/fp'",
      "import { x } from '@undeclared/pkg/sub'",
      "import type { T } from 'only-types'",
      "import dev from 'dev-at-runtime'",
      "import gone from 'not-installed-runtime'",
      "export const load = () => import('lazy-missing')",
      "const worker = new URL('./worker.js', import.meta.url)",
    ].join('\n'),
    'src/lib/worker.ts': "import { z } from 'zod-undeclared'\n",
    'src/lib/helper.test.ts': "import { it } from 'vitest'\nimport fc from 'fast-check'\n",
    'src/lib/test-bars.ts': "import fc from 'fast-check'\n",
    'test/app.test.ts': "import { describe } from 'vitest'\nimport 'test-only-undeclared'\n",
  }
  const installed = new Set(['fastify', 'lodash', 'vitest', 'dev-at-runtime', '@types/only-types', 'fast-check', '@undeclared/pkg', 'zod-undeclared'])

  it('classifies imports by declaration, installation and whether the process loads them', async () => {
    const root = tree(files)
    const summary = await analyseNode({ rootDir: root, installed: (name) => installed.has(name) })
    expect(summary.runtime).toEqual({ entry_points: ['src/server.ts'], reachable_files: 3 })
    expect(summary.modules.map((m) => [m.module, m.declared, m.importable, m.critical])).toEqual([
      ['@undeclared/pkg', false, true, true],
      ['dev-at-runtime', true, true, true],
      ['fast-check', true, true, false],
      ['fastify', true, true, true],
      ['lazy-missing', true, false, false],
      ['lodash', true, true, true],
      ['not-installed-runtime', true, false, true],
      ['only-types', true, true, false],
      ['test-only-undeclared', false, false, false],
      ['vitest', true, true, false],
      ['zod-undeclared', false, true, true],
    ])
    expect(summary.missing_in_requirements).toEqual(['@undeclared/pkg', 'test-only-undeclared', 'zod-undeclared'])
    expect(summary.missing_in_environment).toEqual(['not-installed-runtime'])
    expect(summary.advisory_missing_in_environment).toEqual(['lazy-missing', 'test-only-undeclared'])
    expect(summary.declared_not_imported).toEqual([])
    expect(summary.status).toBe('fail')
    const byModule = Object.fromEntries(summary.advisories.map((a) => [a.module, a]))
    expect(Object.keys(byModule)).toEqual(['@undeclared/pkg', 'dev-at-runtime', 'lazy-missing', 'not-installed-runtime', 'test-only-undeclared', 'zod-undeclared'])
    expect(byModule['not-installed-runtime']).toMatchObject({ critical: true })
    expect(byModule['dev-at-runtime']!.detail).toMatch(/devDependency imported by runtime code at src\/lib\/helper\.ts:4/)
    expect(byModule['lazy-missing']!.detail).toMatch(/only imported dynamically/)
    expect(summary.autofix_command).toBe('npm install @undeclared/pkg zod-undeclared && npm install --save-dev test-only-undeclared')
  })

  it('analyses the build output when there are no TypeScript sources (a deployed image)', async () => {
    const root = tree({
      'package.json': JSON.stringify({ scripts: { start: 'node dist/src/server.js' }, dependencies: { fastify: '^5' } }),
      'dist/src/server.js': "import Fastify from 'fastify'\nimport './routes.js'\n",
      'dist/src/routes.js': "import { z } from 'zod'\n",
    })
    const summary = await analyseNode({ rootDir: root, installed: (name) => name === 'fastify' })
    expect(summary.runtime).toEqual({ entry_points: ['dist/src/server.js'], reachable_files: 2 })
    expect(summary.missing_in_environment).toEqual(['zod'])
    expect(summary.missing_in_requirements).toEqual(['zod'])
  })

  it('fails without a readable package.json', async () => {
    const summary = await analyseNode({ rootDir: tree({ 'src/a.ts': '' }), installed: () => true })
    expect(summary.status).toBe('fail')
    expect(summary.manifest.exists).toBe(false)
    expect(summary.advisories[0]).toMatchObject({ module: 'package.json', critical: true })
  })

  it('looks packages up in node_modules of the folder and its parents', () => {
    const root = tree({ 'node_modules/up/package.json': '{}', 'app/node_modules/@s/p/package.json': '{}' })
    expect(isInstalled(join(root, 'app'), 'up')).toBe(true)
    expect(isInstalled(join(root, 'app'), '@s/p')).toBe(true)
    expect(isInstalled(join(root, 'app'), 'nope')).toBe(false)
  })
})
