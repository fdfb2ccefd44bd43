// The order test files are handed to workers: vitest's own (files that failed last, then the longest), with the heavy
// files spread out among the light ones, so the workers waiting for the heavy lane (heavy-lane.ts) are few.
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { isHeavy } from './heavy.js'

export class LaneSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const heavy = sorted.filter((spec) => isHeavy(relative(spec.project.config.root, spec.moduleId)))
    const light = sorted.filter((spec) => !heavy.includes(spec))
    if (heavy.length === 0) return light
    // One heavy file, then an even share of the light ones, and so on.
    const share = Math.ceil(light.length / heavy.length)
    return heavy.flatMap((spec, i) => [spec, ...light.slice(i * share, (i + 1) * share)])
  }
}
