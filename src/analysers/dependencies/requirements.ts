// Parses pip requirements files: comments, continuations, extras, specifiers, markers, URLs, and -r includes (recursive).
import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { normalizeDistribution } from './python-import-map.js'

export interface Requirement {
  name: string
  /** PEP 503 normalised name: what comparisons use. */
  normalized: string
  extras: string[]
  /** Version specifier as written (`>=2.31,<3`), or '' when none. */
  specifier: string
  marker: string | null
  url: string | null
  editable: boolean
  /** The file that lists it (relative to the root directory) and its line. */
  file: string
  line: number
}

export interface RequirementsProblem {
  file: string
  line: number
  kind: 'unreadable-include' | 'include-cycle' | 'syntax' | 'unnamed-url'
  /** For includes: the include target as written in the file, and relative to the root directory. */
  include?: string
  detail: string
}

export interface ParsedRequirements {
  /** The root file, relative to the root directory. */
  root: string
  exists: boolean
  /** Every file read, root first, relative to the root directory. */
  files: string[]
  requirements: Requirement[]
  /** Constraint files (-c) are recorded, not followed: they pin versions but add no dependency. */
  constraints: string[]
  problems: RequirementsProblem[]
}

export type ReadText = (absolutePath: string) => string

const defaultRead: ReadText = (path) => readFileSync(path, 'utf8')

const NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/
const MAX_INCLUDE_DEPTH = 32

/** Reads `file` (absolute) and every file it includes; paths in the result are relative to `rootDir`. */
export function parseRequirementsFile(file: string, rootDir: string, read: ReadText = defaultRead): ParsedRequirements {
  const rel = (p: string) => relative(rootDir, p) || '.'
  const out: ParsedRequirements = {
    root: rel(file),
    exists: true,
    files: [],
    requirements: [],
    constraints: [],
    problems: [],
  }
  const done = new Set<string>()
  const visit = (path: string, stack: string[]): boolean => {
    let text: string
    try {
      text = read(path)
    } catch {
      return false
    }
    done.add(path)
    out.files.push(rel(path))
    for (const { line, text: content } of logicalLines(text)) {
      const include = /^(?:-r\s*|--requirement(?:\s+|\s*=\s*))(\S+)$/.exec(content)
      if (include) {
        const target = resolve(dirname(path), include[1]!)
        const where = { file: rel(path), line, include: rel(target) }
        if (stack.includes(target) || target === path) {
          out.problems.push({ ...where, kind: 'include-cycle', detail: `-r ${include[1]} includes a file that is already being read (${[...stack, path].map(rel).join(' → ')} → ${rel(target)})` })
        } else if (stack.length >= MAX_INCLUDE_DEPTH) {
          out.problems.push({ ...where, kind: 'syntax', detail: `-r ${include[1]}: includes nested deeper than ${MAX_INCLUDE_DEPTH}` })
        } else if (!done.has(target) && !visit(target, [...stack, path])) {
          out.problems.push({ ...where, kind: 'unreadable-include', detail: `-r ${include[1]} (from ${rel(path)}:${line}) cannot be read` })
        }
        continue
      }
      const constraint = /^(?:-c\s*|--constraint(?:\s+|\s*=\s*))(\S+)$/.exec(content)
      if (constraint) {
        out.constraints.push(rel(resolve(dirname(path), constraint[1]!)))
        continue
      }
      const editable = /^(?:-e\s*|--editable(?:\s+|\s*=\s*))(\S+)/.exec(content)
      if (editable) {
        const named = fromUrl(editable[1]!)
        if (named) out.requirements.push({ ...named, editable: true, file: rel(path), line })
        else out.problems.push({ file: rel(path), line, kind: 'unnamed-url', detail: `-e ${editable[1]}: no #egg=<name> fragment, so the distribution is unknown` })
        continue
      }
      if (content.startsWith('-')) continue // index and install options (-i, --extra-index-url, -f, --pre, …) add no dependency
      const parsed = parseRequirementLine(content)
      if (typeof parsed === 'string') out.problems.push({ file: rel(path), line, kind: /#egg=/.test(content) || /:\/\//.test(content) ? 'unnamed-url' : 'syntax', detail: `${rel(path)}:${line}: ${parsed}` })
      else out.requirements.push({ ...parsed, editable: false, file: rel(path), line })
    }
    return true
  }
  out.exists = visit(file, [])
  return out
}

/** Joins backslash continuations and drops comments and blank lines; `line` is the first physical line. */
export function logicalLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = []
  const physical = text.split(/\r?\n/)
  let pending = ''
  let start = 0
  physical.forEach((raw, index) => {
    // pip: a comment starts at `#` at the line start or after whitespace (a URL fragment `#egg=` is not a comment).
    const uncommented = raw.replace(/(^|\s)#.*$/, '$1')
    if (pending === '') start = index + 1
    if (/\\\s*$/.test(uncommented)) {
      pending += uncommented.replace(/\\\s*$/, ' ')
      return
    }
    const joined = (pending + uncommented).trim()
    pending = ''
    if (joined) out.push({ line: start, text: joined })
  })
  if (pending.trim()) out.push({ line: start, text: pending.trim() })
  return out
}

type ParsedLine = Omit<Requirement, 'file' | 'line' | 'editable'>

/** One PEP 508 requirement (plus pip's per-requirement `--hash` options), or a message saying what is wrong. */
export function parseRequirementLine(text: string): ParsedLine | string {
  const withoutOptions = text.replace(/\s+--(?:hash|config-settings|global-option)(?:=|\s+)\S+/g, '').trim()
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(withoutOptions) || /^\.{0,2}\//.test(withoutOptions)) {
    const named = fromUrl(withoutOptions)
    return named ?? `${withoutOptions}: a URL or path with no #egg=<name> fragment, so the distribution is unknown`
  }
  const [beforeMarker = '', ...markerParts] = withoutOptions.split(';')
  const marker = markerParts.length ? markerParts.join(';').trim() || null : null
  const nameMatch = NAME.exec(beforeMarker.trim())
  if (!nameMatch) return `${JSON.stringify(text)} is not a requirement (PEP 508 name expected)`
  const name = nameMatch[1]!
  let rest = beforeMarker.trim().slice(name.length).trim()
  let extras: string[] = []
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']')
    if (close < 0) return `${JSON.stringify(text)}: unclosed extras bracket`
    extras = rest.slice(1, close).split(',').map((e) => e.trim()).filter(Boolean)
    rest = rest.slice(close + 1).trim()
  }
  let url: string | null = null
  if (rest.startsWith('@')) {
    url = rest.slice(1).trim()
    rest = ''
  }
  const specifier = rest.replace(/^\((.*)\)$/, '$1').replace(/\s+/g, '')
  if (specifier && !/^(?:(?:===|==|!=|~=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+)(?:,(?:===|==|!=|~=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+)*$/.test(specifier)) {
    return `${JSON.stringify(text)}: ${JSON.stringify(specifier)} is not a version specifier`
  }
  return { name, normalized: normalizeDistribution(name), extras, specifier, marker, url }
}

function fromUrl(url: string): ParsedLine | null {
  const egg = /[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(url)
  if (!egg) return null
  const [name, ...extras] = egg[1]!.split(/[[\]]/).filter(Boolean)
  return { name: name!, normalized: normalizeDistribution(name!), extras, specifier: '', marker: null, url }
}
