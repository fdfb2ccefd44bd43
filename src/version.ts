// The two version numbers every caller envelope carries (SPEC §1.1).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

/** The caller contract version: bumped when the /api/v1 contract changes, not when the host does. */
export const NCM_VERSION = '1.1.0'

/** The repository root, found from this module whether it runs from src/ or dist/src/. */
export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)))

function findRepoRoot(start: string): string {
  let dir = start
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }
      if (pkg.name === 'ncm-hub') return dir
    } catch {
      // not here: keep climbing
    }
    dir = dirname(dir)
  }
  throw new Error(`package.json of ncm-hub not found above ${start}`)
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }

/** The host's version, from package.json. */
export const HUB_VERSION: string = pkg.version
