// Independent appliers for the diff round-trip truth test: a unified diff (as GNU patch applies it, without fuzz)
// and an RFC 6902 JSON Patch. Written here, not taken from the diff library the /diff operation may use.

export class PatchError extends Error {
  override name = 'PatchError'
}

/** Applies a unified diff to `original`; every context and removed line must match exactly where the hunk says. */
export function applyUnifiedDiff(original: string, unified: string): string {
  const source = splitLines(original)
  const out: string[] = []
  let cursor = 0 // index into source of the next line not yet copied
  const lines = unified.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  let i = 0
  while (i < lines.length && !lines[i]!.startsWith('@@')) i++ // headers (---, +++, Index:, ====)
  let lastTouched: 'old' | 'new' | 'both' | null = null
  let newEndsWithoutNewline = false
  while (i < lines.length) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!)
    if (!header) throw new PatchError(`line ${i + 1}: expected a hunk header, got ${JSON.stringify(lines[i])}`)
    const oldStart = Number(header[1])
    const oldCount = header[2] === undefined ? 1 : Number(header[2])
    const newCount = header[4] === undefined ? 1 : Number(header[4])
    // A hunk of zero old lines starts *after* line oldStart.
    const at = oldCount === 0 ? oldStart : oldStart - 1
    if (at < cursor) throw new PatchError(`hunk at line ${oldStart} overlaps the previous hunk`)
    while (cursor < at) out.push(source[cursor++]!.text)
    i++
    let seenOld = 0
    let seenNew = 0
    while (i < lines.length && !lines[i]!.startsWith('@@')) {
      const line = lines[i]!
      const tag = line[0]
      const text = line.slice(1)
      if (tag === '\\') {
        if (lastTouched === 'new' || lastTouched === 'both') newEndsWithoutNewline = true
      } else if (tag === ' ' || tag === '-') {
        const have = source[cursor]
        if (!have || have.text !== text) {
          throw new PatchError(`hunk line ${JSON.stringify(line)} does not match line ${cursor + 1} of the original (${JSON.stringify(have?.text ?? '<end>')})`)
        }
        cursor++
        seenOld++
        if (tag === ' ') {
          out.push(text)
          seenNew++
          lastTouched = 'both'
        } else lastTouched = 'old'
      } else if (tag === '+') {
        out.push(text)
        seenNew++
        lastTouched = 'new'
      } else if (line === '') {
        // some producers drop the space of an empty context line
        const have = source[cursor]
        if (!have || have.text !== '') throw new PatchError(`empty hunk line does not match line ${cursor + 1}`)
        out.push('')
        cursor++
        seenOld++
        seenNew++
        lastTouched = 'both'
      } else {
        throw new PatchError(`unexpected hunk line ${JSON.stringify(line)}`)
      }
      i++
    }
    if (seenOld !== oldCount || seenNew !== newCount) {
      throw new PatchError(`hunk @@ -${oldStart},${oldCount} @@ has ${seenOld} old and ${seenNew} new lines, expected ${oldCount} and ${newCount}`)
    }
  }
  const touchedEnd = cursor === source.length
  while (cursor < source.length) out.push(source[cursor++]!.text)
  // The final newline follows the new side's marker when the last hunk reached the end, else the original's.
  const finalNewline = touchedEnd ? !newEndsWithoutNewline : original.endsWith('\n')
  if (out.length === 0) return ''
  return out.join('\n') + (finalNewline ? '\n' : '')
}

function splitLines(text: string): Array<{ text: string }> {
  if (text === '') return []
  const parts = text.split('\n')
  if (parts[parts.length - 1] === '') parts.pop()
  return parts.map((t) => ({ text: t }))
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  path: string
  from?: string
  value?: Json
}

/** Applies an RFC 6902 patch to a deep copy of `document`. */
export function applyJsonPatch(document: Json, patch: readonly JsonPatchOp[]): Json {
  let doc = structuredClone(document)
  for (const [index, operation] of patch.entries()) {
    const where = `operation ${index} (${operation.op} ${operation.path})`
    switch (operation.op) {
      case 'add':
        doc = put(doc, operation.path, structuredClone(operation.value ?? null), 'add', where)
        break
      case 'remove':
        doc = remove(doc, operation.path, where).doc
        break
      case 'replace':
        get(doc, operation.path, where)
        doc = put(doc, operation.path, structuredClone(operation.value ?? null), 'replace', where)
        break
      case 'move': {
        const taken = remove(doc, operation.from ?? '', where)
        doc = put(taken.doc, operation.path, taken.value, 'add', where)
        break
      }
      case 'copy':
        doc = put(doc, operation.path, structuredClone(get(doc, operation.from ?? '', where)), 'add', where)
        break
      case 'test':
        if (JSON.stringify(get(doc, operation.path, where)) !== JSON.stringify(operation.value)) throw new PatchError(`${where}: test failed`)
        break
      default:
        throw new PatchError(`${where}: unknown op`)
    }
  }
  return doc
}

function tokens(pointer: string, where: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw new PatchError(`${where}: ${JSON.stringify(pointer)} is not a JSON pointer`)
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

const pointerOf = (path: string[]) => path.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('')

function get(doc: Json, pointer: string, where: string): Json {
  let node: Json = doc
  for (const token of tokens(pointer, where)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length) node = node[Number(token)]!
    else if (node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, token)) node = node[token]!
    else throw new PatchError(`${where}: ${pointer} does not exist`)
  }
  return node
}

function put(doc: Json, pointer: string, value: Json, mode: 'add' | 'replace', where: string): Json {
  const path = tokens(pointer, where)
  if (path.length === 0) return value
  const parent = get(doc, pointerOf(path.slice(0, -1)), where)
  const last = path[path.length - 1]!
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last)
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new PatchError(`${where}: bad array index ${last}`)
    if (mode === 'add') parent.splice(index, 0, value)
    else parent[index] = value
  } else if (parent !== null && typeof parent === 'object') {
    parent[last] = value
  } else {
    throw new PatchError(`${where}: the parent of ${pointer} is not a container`)
  }
  return doc
}

function remove(doc: Json, pointer: string, where: string): { doc: Json; value: Json } {
  const path = tokens(pointer, where)
  if (path.length === 0) throw new PatchError(`${where}: cannot remove the whole document`)
  const value = get(doc, pointer, where)
  const parent = get(doc, pointerOf(path.slice(0, -1)), where)
  const last = path[path.length - 1]!
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else if (parent !== null && typeof parent === 'object') delete parent[last]
  return { doc, value }
}
