// Test helper: throw-away source trees on disk, removed after each test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** Returns `tree(files)`, which writes the files (paths relative to a fresh root) and returns the root. */
export function useTempTrees(prefix: string): (files: Record<string, string>) => string {
  const roots: string[] = []
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
  })
  return (files) => {
    const root = mkdtempSync(join(tmpdir(), prefix))
    roots.push(root)
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    return root
  }
}
