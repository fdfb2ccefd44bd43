import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())

const post = async (payload: unknown) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/digest', payload: payload as object })
  return { status: res.statusCode, body: json(res) }
}
const refused = async (payload: unknown, code = 'invalid_input') => {
  const { status, body } = await post(payload)
  expect(body.ok).toBe(false)
  expect(body.refuse.code).toBe(code)
  expect(status).toBe(body.refuse.http_status)
  return body.refuse as { reason: string; issues?: Array<{ path: string; message: string }> }
}

describe('POST /digest', () => {
  it('gives sha256 by default, in hex and base64, with the byte length', async () => {
    const { status, body } = await post({ content: 'abc' })
    expect(status).toBe(200)
    expect(body.data).toEqual({
      bytes: 3,
      input_encoding: 'utf-8',
      algorithms: ['sha256'],
      digests: {
        sha256: {
          hex: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
          base64: 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
        },
      },
    })
  })

  it('digests the empty string', async () => {
    const { body } = await post({ content: '', algorithms: ['md5', 'sha1'] })
    expect(body.data.bytes).toBe(0)
    expect(body.data.digests.md5.hex).toBe('d41d8cd98f00b204e9800998ecf8427e')
    expect(body.data.digests.sha1.hex).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709')
  })

  it('answers every algorithm once, and HMACs with a base64 key (RFC 4231 test case 1)', async () => {
    const { body } = await post({
      content: 'Hi There',
      algorithms: ['sha256', 'sha512', 'sha384', 'sha1', 'md5', 'sha3-256', 'blake2b512', 'sha256'],
      hmac_key_base64: Buffer.alloc(20, 0x0b).toString('base64'),
    })
    expect(body.data.algorithms).toEqual(['sha256', 'sha512', 'sha384', 'sha1', 'md5', 'sha3-256', 'blake2b512'])
    expect(Object.keys(body.data.digests)).toHaveLength(7)
    expect(body.data.hmacs.sha256.hex).toBe('b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7')
  })

  it('reads base64 content as bytes', async () => {
    const { body } = await post({ content_base64: Buffer.from('abc').toString('base64'), algorithms: ['sha3-256', 'blake2b512'] })
    expect(body.data.input_encoding).toBe('base64')
    expect(body.data.digests['sha3-256'].hex).toBe('3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532')
    expect(body.data.digests.blake2b512.hex.startsWith('ba80a53f981c4d0d')).toBe(true)
  })

  it('takes bodies over the default 1 MiB (a 16 MiB route)', async () => {
    const { status, body } = await post({ content: 'x'.repeat(2 * 1024 * 1024) })
    expect(status).toBe(200)
    expect(body.data.bytes).toBe(2 * 1024 * 1024)
  })

  describe('refuses', () => {
    it('malformed base64 instead of skipping the junk', async () => {
      for (const bad of ['YWJj!', 'YW Jj', 'YWJ', 'YR==', 'YWJj\n']) {
        const refuse = await refused({ content_base64: bad })
        expect(refuse.issues!.map((i) => i.path)).toEqual(['content_base64'])
        expect(refuse.issues![0]!.message).toMatch(/base64/)
      }
      const key = await refused({ content: 'x', hmac_key_base64: 'not base64!' })
      expect(key.issues![0]!.path).toBe('hmac_key_base64')
    })

    it('no content, or both kinds', async () => {
      expect((await refused({})).issues![0]!.message).toMatch(/content/)
      expect((await refused({ content: 'a', content_base64: 'YQ==' })).issues![0]!.message).toMatch(/not both/)
      await refused({ content: 'a', hmac_key: 'k', hmac_key_base64: 'aw==' })
    })

    it('wrong types, unknown algorithms, empty lists and keys, unknown fields', async () => {
      await refused({ content: 5 })
      await refused({ content: 'a', algorithms: ['sha-256'] })
      await refused({ content: 'a', algorithms: [] })
      await refused({ content: 'a', algorithms: 'sha256' })
      await refused({ content: 'a', hmac_key: '' })
      const unknown = await refused({ content: 'a', salt: 'x' })
      expect(JSON.stringify(unknown)).toMatch(/salt/)
    })

    it('a body over the 16 MiB limit', async () => {
      await refused({ content: 'x'.repeat(17 * 1024 * 1024) }, 'payload_too_large')
    })
  })
})
