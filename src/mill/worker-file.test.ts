import { describe, expect, it } from 'vitest'
import { isFreshBuild, workerFile } from './worker-file.js'

describe('the file a mill worker runs', () => {
  it('is the build only when it exists and no source changed after it', () => {
    expect(isFreshBuild(2_000, true, () => 1_000)).toBe(true)
    expect(isFreshBuild(2_000, true, () => 2_000)).toBe(true)
    expect(isFreshBuild(2_000, true, () => 3_000)).toBe(false)
    expect(isFreshBuild(2_000, false, () => 1_000)).toBe(false)
    expect(isFreshBuild(null, true, () => 1_000)).toBe(false)
  })

  it('runs from sources under their loader, or the build with none', () => {
    const { filename, execArgv } = workerFile()
    expect(execArgv).toEqual(filename.endsWith('.ts') ? ['--import', 'tsx'] : [])
    expect(filename).toMatch(/(\/dist\/src\/mill\/worker-entry\.cjs|\/src\/mill\/worker\.ts)$/)
  })
})
