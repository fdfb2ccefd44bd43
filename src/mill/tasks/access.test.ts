// A pin's stored bytes hashed and written as a JSON string (the access.pin_read task, called directly): exactly the
// JSON.stringify text of what the loop decoded before, characters cut between parts and malformed bytes included.
import { createHash } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import { describe, expect, it } from 'vitest'
import { Piscina } from 'piscina'
import { postable } from '../moving.js'
import { TASKS } from './index.js'

const sha256 = (bytes: Uint8Array) => 'sha256:' + createHash('sha256').update(bytes).digest('hex')
const read = TASKS['access.pin_read']
const text = (chunks: readonly Uint8Array[] | null) => Buffer.concat(chunks ?? []).toString('utf8')

/** What the loop made of the parts before: a StringDecoder across them, the text then written by JSON.stringify. */
function decodedBefore(parts: readonly Uint8Array[]): string {
  const decoder = new StringDecoder('utf8')
  return parts.map((part) => decoder.write(Buffer.from(part))).join('') + decoder.end()
}

/** Cuts bytes at every `step` bytes (inside characters too, as a part migrated or written by another store may be). */
const cut = (bytes: Buffer, step: number): Uint8Array[] => {
  const parts: Uint8Array[] = []
  for (let at = 0; at < bytes.byteLength; at += step) parts.push(new Uint8Array(bytes.subarray(at, at + step)))
  return parts.length > 0 ? parts : [new Uint8Array(0)]
}

const ODD = 'plain "quoted" back\\slash\n\t\r\b\f \u0000\u0001\u001f\u007f é € 😀 \u2028\u2029 \ud83d\ude00 ﷽ end'

describe('access.pin_read', () => {
  it('writes the JSON string JSON.stringify writes for the decoded text, whatever the cuts between parts', () => {
    for (const source of [ODD, ODD.repeat(50), '', '"', '😀'.repeat(7)]) {
      const bytes = Buffer.from(source, 'utf8')
      for (const step of [1, 2, 3, 5, 64, 1 << 20]) {
        const parts = cut(bytes, step)
        const outcome = read({ parts, digest: sha256(bytes), write: true, json: false })
        expect(outcome.actualDigest).toBe(sha256(bytes))
        expect(text(outcome.content)).toBe(JSON.stringify(source))
        expect(outcome.chars).toBe(source.length)
        expect(outcome.stored).toBe(parts)
      }
    }
  })

  it('writes malformed UTF-8 as the loop decoded it (U+FFFD), and only counts characters when not asked to write', () => {
    const bytes = Buffer.from([0x61, 0xe2, 0x82, 0x62, 0xff, 0xc3, 0x22, 0xf0, 0x9f, 0x98])
    for (const step of [1, 2, 4, 16]) {
      const parts = cut(bytes, step)
      const outcome = read({ parts, digest: sha256(bytes), write: true, json: false })
      expect(text(outcome.content)).toBe(JSON.stringify(decodedBefore(parts)))
      expect(read({ parts, digest: sha256(bytes), write: false, json: false })).toMatchObject({ content: null, chars: decodedBefore(parts).length })
    }
  })

  it('withholds bytes that do not hash to the digest: their hash, nothing written', () => {
    const bytes = Buffer.from('tampered')
    const outcome = read({ parts: [bytes], digest: sha256(Buffer.from('original')), write: true, json: false })
    expect(outcome).toMatchObject({ actualDigest: sha256(bytes), content: null, chars: 0 })
  })

  it('checks that a JSON pin\'s bytes are one JSON value, whatever the cuts (answers splice them in as they are)', () => {
    for (const [source, valid] of [['{"a":[1,"é😀"]}', true], ['1,"verified":false', false], ['{"a":1', false], ['', false]] as const) {
      const bytes = Buffer.from(source)
      for (const step of [1, 3, 1 << 20]) {
        expect(read({ parts: cut(bytes, step), digest: sha256(bytes), write: true, json: true }).jsonValid, source).toBe(valid)
      }
    }
    expect(read({ parts: [Buffer.from('{}')], digest: sha256(Buffer.from('x')), write: true, json: true }).jsonValid).toBe(false)
    expect(read({ parts: [Buffer.from('{}')], digest: sha256(Buffer.from('{}')), write: true, json: false }).jsonValid).toBeNull()
  })

  it('moves its parts and its written chunks back to the loop', () => {
    const parts = cut(Buffer.from(ODD), 8)
    const outcome = read({ parts, digest: sha256(Buffer.from(ODD)), write: true, json: false })
    const moved = (postable(outcome) as Record<symbol, unknown>)[Piscina.transferableSymbol] as ArrayBuffer[]
    expect(new Set(moved)).toEqual(new Set([...parts, ...outcome.content!].map((view) => view.buffer)))
  })
})
