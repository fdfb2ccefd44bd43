import { describe, expect, it } from 'vitest'
import { pythonImports } from './python-imports.js'

const modules = (source: string) => pythonImports(source).map((i) => `${i.full}:${i.line}${i.guarded ? ':guarded' : ''}:${i.via}`)

describe('pythonImports', () => {
  it('reads plain, dotted, aliased and comma-separated imports', () => {
    expect(modules('import os\nimport a.b.c as abc, d\nimport  e . f\n')).toEqual([
      'os:1:import', 'a.b.c:2:import', 'd:2:import', 'e.f:3:import',
    ])
    expect(pythonImports('import a.b.c as abc').map((i) => i.module)).toEqual(['a'])
  })

  it('reads from-imports, including parenthesised ones over several lines, and skips relative ones', () => {
    const source = 'from x.y import (\n    p,\n    q as r,  # trailing comment\n)\nfrom . import sibling\nfrom .pkg import thing\nfrom .. import up\nfrom z import *\n'
    expect(modules(source)).toEqual(['x.y:1:from', 'z:8:from'])
  })

  it('ignores import text inside comments, strings, docstrings and f-strings', () => {
    const source = [
      '"""Module doc.',
      'import fake_in_docstring',
      '"""',
      '# import fake_in_comment',
      "s = 'import fake_in_string'",
      'b = rb"from fake_bytes import x"',
      "f = f'{1} import fake_fstring'",
      "t = '''",
      'from fake_triple import y',
      "'''",
      'import real',
    ].join('\n')
    expect(modules(source)).toEqual(['real:11:import'])
  })

  it('follows backslash continuations and semicolon-separated statements', () => {
    expect(modules('import alpha, \\\n    beta\nx = 1; import gamma; from delta import e\n')).toEqual([
      'alpha:1:import', 'beta:1:import', 'gamma:3:import', 'delta:3:from',
    ])
  })

  it('marks imports inside try/except/finally as guarded, nested function imports as not', () => {
    const source = [
      'try:',
      '    import ujson as json',
      'except ImportError:',
      '    import simplejson as json',
      'finally:',
      '    pass',
      'import requests',
      'def main():',
      '    import rich',
      '    try: import yaml',
      '    except ImportError: yaml = None',
      'if True:',
      '  import toml',
    ].join('\n')
    expect(modules(source)).toEqual([
      'ujson:2:guarded:import', 'simplejson:4:guarded:import', 'requests:7:import', 'rich:9:import', 'yaml:10:guarded:import', 'toml:13:import',
    ])
  })

  it('leaves out imports under `if TYPE_CHECKING:` and keeps what follows the block', () => {
    const source = 'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pandas import DataFrame\n    import numpy\nimport attr\n'
    expect(modules(source)).toEqual(['typing:1:from', 'attr:5:import'])
  })

  it('finds importlib.import_module and __import__ with a literal name only', () => {
    const source = 'import importlib\nm = importlib.import_module("yaml.loader")\nn = __import__(\'json\')\nq = importlib.import_module(name)\nr = importlib.import_module(".rel", package="p")\n'
    expect(modules(source)).toEqual(['importlib:1:import', 'yaml.loader:2:dynamic', 'json:3:dynamic'])
  })

  it('copes with tabs, CRLF line ends and an unterminated string', () => {
    expect(modules('if x:\r\n\timport a\r\nimport b\r\n')).toEqual(['a:2:import', 'b:3:import'])
    expect(modules("s = 'oops\nimport after_bad_string\n")).toEqual(['after_bad_string:2:import'])
  })
})
