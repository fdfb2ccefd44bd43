import { describe, expect, it } from 'vitest'
import { tsImports } from './ts-imports.js'

const specs = (source: string) => tsImports(source).map((i) => `${i.specifier}:${i.line}${i.typeOnly ? ':type' : ''}${i.dynamic ? ':dynamic' : ''}`)

describe('tsImports', () => {
  it('reads every static import form', () => {
    const source = [
      "import a from 'default-only'",
      "import * as ns from \"namespace\"",
      "import { x, y as z } from 'named'",
      "import d, { e } from 'default-and-named'",
      "import 'side-effect'",
      "import {",
      '  multi,',
      '  line,',
      "} from '@scope/multi/sub'",
      "import fs = require('legacy')",
    ].join('\n')
    expect(specs(source)).toEqual([
      'default-only:1', 'namespace:2', 'named:3', 'default-and-named:4', 'side-effect:5', '@scope/multi/sub:6', 'legacy:10',
    ])
  })

  it('marks type-only imports and re-exports', () => {
    const source = [
      "import type { A } from 'types-a'",
      "import type B from 'types-b'",
      "import { type C, D } from 'mixed'",
      "export type { E } from 'types-e'",
      "export * from 'reexport-all'",
      "export * as space from 'reexport-ns'",
      "export { f } from 'reexport-named'",
      "import type, { g } from 'named-type'",
    ].join('\n')
    expect(specs(source)).toEqual([
      'types-a:1:type', 'types-b:2:type', 'mixed:3', 'types-e:4:type', 'reexport-all:5', 'reexport-ns:6', 'reexport-named:7', 'named-type:8',
    ])
  })

  it('reads dynamic import() and require() with a literal only', () => {
    const source = "const w = await import('wabt')\nconst r = require(\"cjs\")\nconst v = await import(name)\nconst t = import(`tpl`)\nlet q: typeof import('typed')\n"
    expect(specs(source)).toEqual(['wabt:1:dynamic', 'cjs:2', 'typed:5:type:dynamic'])
  })

  it('ignores comments, strings, templates, regexes and property names that look like imports', () => {
    const source = [
      "// import x from 'in-line-comment'",
      "/* import y from 'in-block-comment' */",
      "const s = \"import z from 'in-string'\"",
      "const t = `import q from 'in-template' ${'import w from \"nested\"'} done`",
      "const re = /import r from 'in-regex'/g",
      "const ratio = a / b / c; import real from 'after-division'",
      "const meta = import.meta.url",
      "obj.import('not-a-module'); obj.require('nor-this')",
      "export { local }",
      "const after = 1",
    ].join('\n')
    expect(specs(source)).toEqual(['after-division:6'])
  })
})
