import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempTrees } from './test-tree.js'
import { logicalLines, parseRequirementLine, parseRequirementsFile } from './requirements.js'

const tree = useTempTrees('ncm-req-')

describe('parseRequirementLine', () => {
  it('reads name, extras, specifiers and markers', () => {
    expect(parseRequirementLine('requests[socks, security] >=2.31,<3 ; python_version >= "3.8"')).toEqual({
      name: 'requests', normalized: 'requests', extras: ['socks', 'security'], specifier: '>=2.31,<3',
      marker: 'python_version >= "3.8"', url: null,
    })
    expect(parseRequirementLine('Foo_Bar.baz==1.0')).toMatchObject({ name: 'Foo_Bar.baz', normalized: 'foo-bar-baz', specifier: '==1.0' })
    expect(parseRequirementLine('zope.interface (>=5)')).toMatchObject({ name: 'zope.interface', specifier: '>=5' })
    expect(parseRequirementLine('pkg ~=1.4.2')).toMatchObject({ specifier: '~=1.4.2' })
  })

  it('reads direct references and pip hash options', () => {
    expect(parseRequirementLine('pip @ https://example.org/pip-23.0.tar.gz')).toMatchObject({ name: 'pip', url: 'https://example.org/pip-23.0.tar.gz' })
    expect(parseRequirementLine('git+https://example.org/x/y.git#egg=ylib')).toMatchObject({ name: 'ylib', normalized: 'ylib' })
    expect(parseRequirementLine('attrs==23.1 --hash=sha256:abcd')).toMatchObject({ name: 'attrs', specifier: '==23.1' })
  })

  it('says what is wrong with a line that is not a requirement', () => {
    expect(parseRequirementLine('==1.0')).toMatch(/PEP 508 name expected/)
    expect(parseRequirementLine('pkg >= ')).toMatch(/not a version specifier/)
    expect(parseRequirementLine('https://example.org/archive.zip')).toMatch(/no #egg=<name>/)
    expect(parseRequirementLine('pkg[extra')).toMatch(/unclosed extras/)
  })
})

describe('logicalLines', () => {
  it('drops comments and blank lines and joins continuations, keeping the first line number', () => {
    const text = '# header\n\nrequests \\\n  >=2.31  # the client\nhttps://x/y.git#egg=z\n'
    expect(logicalLines(text)).toEqual([
      { line: 3, text: 'requests    >=2.31' },
      { line: 5, text: 'https://x/y.git#egg=z' },
    ])
  })
})

describe('parseRequirementsFile', () => {
  it('follows -r includes recursively, relative to the including file, once each', () => {
    const root = tree({
      'requirements.txt': '-r reqs/base.txt\n--requirement=reqs/extra.txt\nrequests>=2\n',
      'reqs/base.txt': 'PyYAML==6.0\n-r common.txt\n',
      'reqs/extra.txt': '-r common.txt\nrich\n',
      'reqs/common.txt': 'idna\n',
    })
    const parsed = parseRequirementsFile(join(root, 'requirements.txt'), root)
    expect(parsed.exists).toBe(true)
    expect(parsed.files).toEqual(['requirements.txt', 'reqs/base.txt', 'reqs/common.txt', 'reqs/extra.txt'])
    expect(parsed.requirements.map((r) => `${r.name}@${r.file}:${r.line}`)).toEqual([
      'PyYAML@reqs/base.txt:1', 'idna@reqs/common.txt:1', 'rich@reqs/extra.txt:2', 'requests@requirements.txt:3',
    ])
    expect(parsed.problems).toEqual([])
  })

  it('reports an include cycle without looping', () => {
    const root = tree({ 'requirements.txt': '-r a.txt\n', 'a.txt': 'x\n-r b.txt\n', 'b.txt': '-r a.txt\ny\n' })
    const parsed = parseRequirementsFile(join(root, 'requirements.txt'), root)
    expect(parsed.requirements.map((r) => r.name)).toEqual(['x', 'y'])
    expect(parsed.problems).toEqual([
      expect.objectContaining({ kind: 'include-cycle', file: 'b.txt', line: 1, include: 'a.txt' }),
    ])
  })

  it('reports an include that cannot be read, with its path relative to the root', () => {
    const root = tree({ 'requirements.txt': 'requests\n-r missing/dev.txt\n' })
    const parsed = parseRequirementsFile(join(root, 'requirements.txt'), root)
    expect(parsed.requirements.map((r) => r.name)).toEqual(['requests'])
    expect(parsed.problems).toEqual([
      { file: 'requirements.txt', line: 2, kind: 'unreadable-include', include: 'missing/dev.txt', detail: '-r missing/dev.txt (from requirements.txt:2) cannot be read' },
    ])
  })

  it('records constraints and editables, skips index options, and reports bad lines', () => {
    const root = tree({
      'requirements.txt': '-i https://example.org/simple\n--extra-index-url https://example.org/other\n-c constraints.txt\n-e git+https://example.org/a.git#egg=alib\n-e ./local\n!!!\n',
    })
    const parsed = parseRequirementsFile(join(root, 'requirements.txt'), root)
    expect(parsed.constraints).toEqual(['constraints.txt'])
    expect(parsed.requirements).toEqual([expect.objectContaining({ name: 'alib', editable: true })])
    expect(parsed.problems.map((p) => [p.kind, p.line])).toEqual([['unnamed-url', 5], ['syntax', 6]])
  })

  it('says when the root file does not exist', () => {
    const root = tree({})
    const parsed = parseRequirementsFile(join(root, 'requirements.txt'), root)
    expect(parsed).toMatchObject({ root: 'requirements.txt', exists: false, files: [], requirements: [] })
  })
})
