// A text to pin: the same parts and digest whether encoded on the loop (short) or in the mill (long); a long one is
// sent to the mill, a short one never is.
import { describe, expect, it } from 'vitest'
import type { Mill } from '../mill/pool.js'
import { TASKS } from '../mill/tasks/index.js'
import { PIN_ON_LOOP_CHARS, pinBytesFor } from './pin-bytes.js'
import { PIN_PART_CHARS, pinBytesOf } from './pin-parts.js'

function recordingMill() {
  const sent: string[] = []
  const mill: Pick<Mill, 'run'> = {
    run: (async (task: 'access.pin_bytes', input: { text: string; partChars: number }) => {
      sent.push(task)
      return TASKS[task](input)
    }) as Mill['run'],
  }
  return { mill, sent }
}

describe('pinBytesFor', () => {
  it('encodes a short text on the loop, up to the loop\'s linear work in UTF-8 at worst', async () => {
    const { mill, sent } = recordingMill()
    expect(await pinBytesFor('hello, €', mill, null)).toEqual(pinBytesOf('hello, €'))
    const longest = '€'.repeat(PIN_ON_LOOP_CHARS)
    expect(await pinBytesFor(longest, mill, null)).toEqual(pinBytesOf(longest))
    expect(sent).toEqual([])
    await pinBytesFor(longest + 'a', mill, null)
    expect(sent).toEqual(['access.pin_bytes'])
  })

  it('sends a long two-byte text to the mill and gets the same parts, size and digest back as Buffers', async () => {
    const { mill, sent } = recordingMill()
    // A pair cut at a part boundary would change the bytes: emoji straddle every boundary here.
    const text = '€😀'.repeat(PIN_PART_CHARS)
    const got = await pinBytesFor(text, mill, 'someone')
    expect(sent).toEqual(['access.pin_bytes'])
    const want = pinBytesOf(text)
    expect(got.digest).toBe(want.digest)
    expect(got.size).toBe(Buffer.byteLength(text))
    expect(got.parts.every((part) => Buffer.isBuffer(part))).toBe(true)
    expect(Buffer.concat(got.parts).equals(Buffer.concat(want.parts))).toBe(true)
    expect(got.parts.map((p) => p.byteLength)).toEqual(want.parts.map((p) => p.byteLength))
  })
})
