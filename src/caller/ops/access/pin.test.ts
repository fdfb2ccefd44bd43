// A pin read's answer, now spliced from bytes the read wrote (in the mill when large), is byte for byte what the
// route's serializer wrote before from the decoded text and the parsed value.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { canonicalJson } from '../../../engines/digest/canonical-json.js'
import { PIN_PART_CHARS, pinBytesOf } from '../../../access/pin-parts.js'
import { pinRepository, readPin, type PinMediaType } from '../../../access/pins.js'
import { serializerOf } from '../../../json/serializer.js'
import { createMill } from '../../../mill/pool.js'
import { testStores } from '../../../store/test-backends.js'
import { LOOP_VALUE_MAX_BYTES, ON_LOOP_WORK_MAX_BYTES } from '../../../json/loop-rule.js'
import { pin, pinReadAnswer } from './pin.js'

const stores = testStores()
const mill = createMill({ threads: 1, maxQueue: 4 })
afterAll(async () => {
  await mill.close()
  await stores.cleanup()
})

const ODD = 'plain "quoted" back\\slash\n\t\r\b\f \u0000\u0001\u001f\u007f é € 😀 \u2028\u2029 ﷽ end'

/** What the route answered before: the record, the decoded text, and a JSON pin's parsed value, by one serializer. */
const before = (record: object, text: string, mediaType: PinMediaType) =>
  serializerOf(pin.output)({ action: 'read', ...record, verified: true, content: text, ...(mediaType === 'application/json' ? { json: JSON.parse(text) } : {}) })

async function pinnedAndRead(text: string, mediaType: PinMediaType) {
  const repo = pinRepository((await stores.open('sqlite')).sql)
  const bytes = pinBytesOf(text)
  const { record } = await repo.put(bytes, mediaType, 'a "label" é', Date.parse('2026-01-01T00:00:00Z'))
  const run = vi.spyOn(mill, 'run')
  try {
    const read = await readPin(repo, bytes.digest, { mill, owner: null, op: 'pin', hold: () => undefined })
    // The parts sent moved (left detached here), not copied.
    const moved = run.mock.calls.map(([, input]) => (input as { parts: Uint8Array[] }).parts.every((part) => part.buffer.byteLength === 0))
    return { record, answer: pinReadAnswer(read), inMill: run.mock.calls.map(([task]) => task), moved }
  } finally {
    run.mockRestore()
  }
}

const wide = (n: number) => ({
  z: [1, -0.5, 1e21, 2 ** 53, null, true, ODD],
  'é😀': { nested: { deeper: ['\u0000', '"', '\\'] } },
  a: Array.from({ length: n }, (_, i) => ({ [`k${i}`]: `${ODD}${i}` })),
})

describe('a pin read answer', () => {
  it.each([
    ['a small text pin, read on the loop', ODD, 'text/plain', false],
    ['a large text pin of two parts, hashed and written in the mill', ODD.repeat(6_000), 'text/plain', true],
    ['a small JSON pin, read on the loop', canonicalJson(wide(1)), 'application/json', false],
    ['a large JSON pin, hashed and written in the mill', canonicalJson(wide(2_000)), 'application/json', true],
  ] as const)('is what the serializer wrote before: %s', async (_, text, mediaType, large) => {
    expect(Buffer.byteLength(text) > LOOP_VALUE_MAX_BYTES).toBe(large)
    expect(Buffer.byteLength(text) <= ON_LOOP_WORK_MAX_BYTES).toBe(!large)
    const { record, answer, inMill, moved } = await pinnedAndRead(text, mediaType)
    if (large) expect(text.length).toBeGreaterThan(mediaType === 'text/plain' ? PIN_PART_CHARS : 0)
    expect(answer.text()).toBe(before(record, text, mediaType))
    // A pin over the loop's limit is never decoded, escaped or parsed here: its bytes went to the mill.
    expect(inMill).toEqual(large ? ['access.pin_read'] : [])
    expect(moved).toEqual(large ? [true] : [])
  })

  it("answers a JSON pin's stored canonical text as its json, the value the parsed one (array-index keys stay in JCS order)", async () => {
    const text = canonicalJson({ 10: 'ten', 9: 'nine', b: 1 })
    const { record, answer } = await pinnedAndRead(text, 'application/json')
    expect(answer.text()).toContain(`"json":${text}}`)
    expect(JSON.parse(answer.text())).toEqual(JSON.parse(before(record, text, 'application/json')))
  })
})
