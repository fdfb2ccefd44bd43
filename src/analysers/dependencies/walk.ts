// Lists a tree's source files by extension, skipping dependency, build, VCS and data folders; bounded in count and depth.
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

/** Folders that never hold the project's own sources. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules', 'dist', 'build', 'data', 'tmp', 'coverage', 'artifacts', '__pycache__', 'venv', 'env', 'site-packages',
])

export const MAX_FILES = 5000
const MAX_DEPTH = 12

export interface WalkResult {
  /** Paths relative to the root, sorted, with `/` separators. */
  files: string[]
  /** True when MAX_FILES was reached and the list is incomplete. */
  truncated: boolean
}

export function listFiles(root: string, extensions: readonly string[], under = '.'): WalkResult {
  const files: string[] = []
  let truncated = false
  const visit = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH || truncated) return
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      // Dot-folders (.git, .venv, .cache…) are tooling, not sources.
      if (entry.name.startsWith('.')) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) visit(path, depth + 1)
      } else if (entry.isFile() && extensions.some((ext) => entry.name.endsWith(ext))) {
        if (files.length >= MAX_FILES) {
          truncated = true
          return
        }
        files.push(relative(root, path).split('\\').join('/'))
      }
    }
  }
  visit(join(root, under), 0)
  return { files, truncated }
}
