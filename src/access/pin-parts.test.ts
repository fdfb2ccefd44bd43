// A pin's bytes in parts on SQLite and PostgreSQL: cut between characters (never inside a surrogate pair), hashed as one
// whole, read back as they are, and each part a statement of its own with a loop turn between.
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { turnsDuring } from '../store/test-turns.js'
import { pinBytesOf, readPinBytes, writePinParts } from './pin-parts.js'

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
  it('read back as they are stored, a turn between parts', async () => {
    const { sql } = await stores.open(backend)
    const { parts, digest } = pinBytesOf(TEXT, 4)
    await writePinParts(sql, digest, parts, 0)
    // Written again (a put of the same content at once, or after a crash): the parts stand as they are.
    await writePinParts(sql, digest, parts, 0)
    const { value, turns } = await turnsDuring(() => readPinBytes(sql, digest))
    expect(value.map((part) => Buffer.from(part).toString('hex'))).toEqual(parts.map((part) => part.toString('hex')))
    expect(sha256(Buffer.concat(value))).toBe(digest)
    expect(turns).toBeGreaterThanOrEqual(parts.length - 1)

    await sql.run('UPDATE pin_parts SET content = ? WHERE digest = ? AND seq = 1', [Buffer.from('XY'), digest])
    expect(sha256(Buffer.concat(await readPinBytes(sql, digest)))).not.toBe(digest)
  })

  it('leaves out a part missing between others (the digest of what is there tells)', async () => {
    const { sql } = await stores.open(backend)
    const { parts, digest } = pinBytesOf(TEXT, 4)
    await writePinParts(sql, digest, parts, 0)
    await sql.run('DELETE FROM pin_parts WHERE digest = ? AND seq = 1', [digest])
    expect(Buffer.concat(await readPinBytes(sql, digest)).equals(Buffer.concat([parts[0]!, ...parts.slice(2)]))).toBe(true)
  })
})
