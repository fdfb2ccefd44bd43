import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { NCM_VERSION } from '../../src/version.js'
import { CHANGELOG } from '../../src/caller/changelog.js'

/** Every release of the contract, newest first: what a client of 0.x or of a 1.0.0 pre-release has to catch up on. */
const RELEASES = CHANGELOG.map((e) => e.version)

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())

const post = async (payload: unknown) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/upgrade', payload: payload as object })
  return { status: res.statusCode, body: json(res) }
}

describe('POST /upgrade', () => {
  it('the current version is compatible and has nothing new', async () => {
    const { body } = await post({ from: NCM_VERSION })
    expect(body.data).toMatchObject({ from: NCM_VERSION, current: NCM_VERSION, relation: 'same', compatible: true, breaking: false, changes: [] })
  })

  it('an older major version is incompatible and gets every entry since', async () => {
    const { body } = await post({ from: '0.9.0' })
    expect(body.data).toMatchObject({ relation: 'older', compatible: false, breaking: true })
    expect(body.data.changes.map((c: { version: string }) => c.version)).toEqual(RELEASES)
    expect(body.data.changes.at(-1).changes.added.length).toBeGreaterThan(0)
    expect(body.data.reason).toMatch(/major version 0 → 1/)
  })

  it('a pre-release of the current version is older and compatible', async () => {
    const { body } = await post({ from: `${NCM_VERSION}-rc.1` })
    expect(body.data).toMatchObject({ relation: 'older', compatible: true, breaking: false })
    expect(body.data.changes.map((c: { version: string }) => c.version)).toEqual([NCM_VERSION])
  })

  it('a newer version is not served here, and says so', async () => {
    for (const from of ['1.1.1', '1.2.0', '2.0.0']) {
      const { body } = await post({ from })
      expect(body.data).toMatchObject({ relation: 'newer', compatible: false, changes: [] })
      expect(body.data.reason).toMatch(/newer than this host's contract/)
    }
  })

  it('refuses what is not a semantic version', async () => {
    for (const payload of [{ from: '1.0' }, { from: 'latest' }, { from: '' }, { from: 1 }, {}, { from: '1.0.0', to: '2.0.0' }]) {
      const { status, body } = await post(payload)
      expect(status).toBe(400)
      expect(body.refuse.code).toBe('invalid_input')
    }
    expect((await post({ from: 'latest' })).body.refuse.issues[0].message).toMatch(/semantic version/)
  })
})
