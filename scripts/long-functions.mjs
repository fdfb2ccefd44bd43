// Lists functions in src/ (tests excluded) longer than N lines (default 120), longest first.
// Usage: node scripts/long-functions.mjs [N]
import { parseSync } from '@swc/core'
import fs from 'node:fs'
import path from 'node:path'

const limit = Number(process.argv[2] ?? 120)
const files = []
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) files.push(p)
  }
}
walk('src')

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassMethod'])
const found = []
for (const file of files) {
  // A leading ';' pins the module span to byte 0 of the text (swc offsets are global across parses).
  const text = fs.readFileSync(file, 'utf8').replace(/^#!/, '//')
  const bytes = Buffer.from(';' + text)
  const ast = parseSync(bytes.toString(), { syntax: 'typescript', tsx: false })
  const base = ast.span.start
  const lineAt = (offset) => { let n = 1; for (let i = 0; i < offset - base && i < bytes.length; i++) if (bytes[i] === 10) n++; return n }
  const visit = (node, name) => {
    if (!node || typeof node !== 'object') return
    if (Array.isArray(node)) { for (const x of node) visit(x, name); return }
    let here = name
    if (node.type === 'VariableDeclarator' && node.id?.value) here = node.id.value
    if ((node.type === 'KeyValueProperty' || node.type === 'MethodProperty') && node.key?.value) here = node.key.value
    if (node.type === 'FunctionDeclaration' && node.identifier?.value) here = node.identifier.value
    if (FUNCTIONS.has(node.type) && node.span) {
      const start = lineAt(node.span.start), end = lineAt(node.span.end)
      if (end - start + 1 > limit) found.push([end - start + 1, here ?? '<anonymous>', `${file}:${start}`])
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'span' && v && typeof v === 'object') visit(v, FUNCTIONS.has(node.type) ? undefined : here)
  }
  visit(ast.body, undefined)
}
found.sort((a, b) => b[0] - a[0])
for (const [lines, name, where] of found) console.log(String(lines).padStart(4), name, where)
process.exitCode = 0
