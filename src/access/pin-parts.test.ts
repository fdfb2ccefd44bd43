// A pin's bytes in parts on SQLite and PostgreSQL: cut between characters (never inside a surrogate pair), hashed as one
// whole, read back whole, and each part a statement of its own with a loop turn between.
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { turnsDuring } from '../store/test-turns.js'
import { pinBytesOf, readPinParts, writePinParts } from './pin-parts.js'

const stores = testStores()
afterAll(() => stores.cleanup())
const sha256 = (bytes: Uint8Array | string) => 'sha256:' + createHash('sha256').update(bytes).digest('hex')

// 4 characters a part: '😀' is a surrogate pair that a cut at 4 would split, 'é' and '€' are 2 and 3 bytes of UTF-8.
const TEXT = 'abc😀déf€ghij😀😀k'

describe('pinBytesOf', () => {
  it('cuts a text into UTF-8 parts between characters and hashes them as the whole', async () => {
    const { parts, size, digest } = pinBytesOf(TEXT, 4)
    const whole = Buffer.from(TEXT, 'utf8')
    expect(Buffer.concat(parts).equals(whole)).toBe(true)
    expect(size).toBe(whole.byteLength)
    expect(digest).toBe(sha256(whole))
    // A part that split a surrogate pair would not decode to well-formed text on its own.
    expect(parts.map((p) => p.toString('utf8')).join('')).toBe(TEXT)
    expect(parts.length).toBeGreaterThan(4)
  })

  it('makes one empty part of the empty text', async () => {
    expect(pinBytesOf('')).toEqual({ parts: [Buffer.alloc(0)], size: 0, digest: sha256('') })
  })

})

describe.each(TEST_BACKENDS)('pin parts on %s', (backend) => {
  it('read back whole, a turn between parts, with the hash of the bytes as stored now', async () => {
    const { sql } = await stores.open(backend)
    const { parts, digest } = pinBytesOf(TEXT, 4)
    await writePinParts(sql, digest, parts, 0)
    // Written again (a put of the same content at once, or after a crash): the parts stand as they are.
    await writePinParts(sql, digest, parts, 0)
    const { value, turns } = await turnsDuring(() => readPinParts(sql, digest))
    expect(value).toEqual({ text: TEXT, actualDigest: digest })
    expect(turns).toBeGreaterThanOrEqual(parts.length - 1)

    await sql.run('UPDATE pin_parts SET content = ? WHERE digest = ? AND seq = 1', [Buffer.from('XY'), digest])
    expect((await readPinParts(sql, digest)).actualDigest).not.toBe(digest)
  })

  it('decodes a character cut between two parts (parts not written by pinBytesOf, e.g. migrated)', async () => {
    const { sql } = await stores.open(backend)
    const bytes = Buffer.from('a€b', 'utf8') // € is 3 bytes: cut after its first
    await writePinParts(sql, 'cut', [bytes.subarray(0, 2), bytes.subarray(2)], 0)
    expect(await readPinParts(sql, 'cut')).toEqual({ text: 'a€b', actualDigest: sha256(bytes) })
  })
})
