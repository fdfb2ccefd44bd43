import { describe, expect, it } from 'vitest'
import { checkModel, KNOWN_ANSWER_CASES } from './truth-cases.js'

describe('checkModel (the truth test does not trust the solver)', () => {
  const f = { vars: 3, clauses: [[1, 2], [-1, 2], [-2, 3], [-3, -1]] }
  it('accepts a model that satisfies every clause', () => {
    expect(checkModel(f, [-1, 2, 3])).toBeNull()
  })
  it('names the first falsified clause, a missing or repeated variable, or an out-of-range literal', () => {
    expect(checkModel(f, [1, 2, 3])).toBe('clause 4 (-3 -1) is false under the model')
    expect(checkModel(f, [-1, 2])).toBe('the model assigns 2 of 3 variables')
    expect(checkModel(f, [-1, 2, 2])).toBe('variable 2 appears twice in the model')
    expect(checkModel(f, [-1, 2, 4])).toBe('model literal 4 is out of range')
    expect(checkModel(f, null)).toBe('no model returned')
  })
})

describe('known-answer cases', () => {
  it('have unique names, a source each, and checks that reject a wrong answer', () => {
    const names = KNOWN_ANSWER_CASES.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    for (const c of KNOWN_ANSWER_CASES) {
      expect(c.source.length).toBeGreaterThan(10)
      expect(c.check({})).not.toBeNull()
      expect(c.check(null)).not.toBeNull()
    }
  })

  it('accept the published answers', () => {
    const digest = KNOWN_ANSWER_CASES.find((c) => c.name.startsWith('digest: "abc"'))!
    expect(digest.check({
      bytes: 3,
      digests: {
        sha256: { hex: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
        sha512: { hex: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f' },
        sha1: { hex: 'a9993e364706816aba3e25717850c26c9cd0d89d' },
        md5: { hex: '900150983cd24fb0d6963f7d28e17f72' },
      },
    })).toBeNull()
    const unsat = KNOWN_ANSWER_CASES.find((c) => c.name.includes('PHP(3,2)'))!
    expect(unsat.check({ status: 'UNSAT' })).toBeNull()
    expect(unsat.check({ status: 'SAT' })).toMatch(/expected "UNSAT"/)
    const diff = KNOWN_ANSWER_CASES.find((c) => c.name.includes('(lines)'))!
    expect(diff.check({ unified: '@@ -1,4 +1,5 @@\n alpha\n-beta\n+BETA\n gamma\n delta\n+epsilon\n', added: 2, removed: 1 })).toBeNull()
    expect(diff.check({ unified: '@@ -1,4 +1,4 @@\n alpha\n-beta\n+BETA\n gamma\n delta\n', added: 1, removed: 1 })).toMatch(/patched text/)
  })
})
