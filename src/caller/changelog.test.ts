import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { CHANGE_KINDS, CHANGELOG, type ChangeKind, type ChangelogEntry } from './changelog.js'
import { NCM_VERSION, REPO_ROOT } from '../version.js'
import { registry } from './registry.js'

/** Reads CHANGELOG.md (Keep a Changelog): "## [x.y.z] - date", a summary paragraph, "### Kind" lists of "- item". */
function parseChangelog(markdown: string): ChangelogEntry[] {
  const entries: ChangelogEntry[] = []
  let entry: ChangelogEntry | null = null
  let kind: ChangeKind | null = null
  for (const line of markdown.split('\n')) {
    const release = /^## \[(.+?)\] - (\d{4}-\d{2}-\d{2})$/.exec(line)
    if (release) {
      entry = { version: release[1]!, date: release[2]!, summary: '', changes: {} }
      entries.push(entry)
      kind = null
      continue
    }
    if (!entry) continue
    const heading = /^### (\w+)$/.exec(line)
    if (heading) {
      const name = heading[1]!.toLowerCase() as ChangeKind
      if (!CHANGE_KINDS.includes(name)) throw new Error(`unknown section "${heading[1]}" in CHANGELOG.md`)
      kind = name
      entry.changes[name] = []
      continue
    }
    if (kind && line.startsWith('- ')) entry.changes[kind]!.push(line.slice(2))
    else if (!kind && line.trim() !== '') entry.summary += (entry.summary ? ' ' : '') + line.trim()
    else if (kind && line.trim() !== '') throw new Error(`unexpected line in CHANGELOG.md: ${line}`)
  }
  return entries
}

const markdown = readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8')

describe('the changelog', () => {
  it('in src/caller/changelog.ts is the same as CHANGELOG.md, entry for entry', () => {
    expect(parseChangelog(markdown)).toEqual(CHANGELOG)
  })

  it('is newest first, with valid versions, and its newest entry is the current contract version', () => {
    for (const entry of CHANGELOG) expect(semver.valid(entry.version), entry.version).toBe(entry.version)
    for (let i = 1; i < CHANGELOG.length; i++) expect(semver.gt(CHANGELOG[i - 1]!.version, CHANGELOG[i]!.version)).toBe(true)
    expect(CHANGELOG[0]!.version).toBe(NCM_VERSION)
  })

  it('names every path the registry serves (a new operation needs an entry)', () => {
    const text = CHANGELOG.flatMap((e) => Object.values(e.changes).flat()).join('\n')
    const missing = registry.operations.map((op) => op.path).filter((path) => !text.includes(`\`${path}\``))
    expect(missing).toEqual([])
  })
})
