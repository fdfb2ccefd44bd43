// A pinned JSON value's canonical text: the same on the loop (small) and in the mill (large), the mill getting the
// value as JSON text written a slice at a time with loop turns between.
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../engines/digest/canonical-json.js'
import type { Mill } from '../mill/pool.js'
import { TASKS } from '../mill/tasks/index.js'
import { turnsDuring } from '../store/test-turns.js'
import { canonicalPinBytes, INLINE_JSON_CHARS } from './pin-json.js'
import { pinBytesOf } from './pin-parts.js'

/** A mill that runs the canonical task here, on the JSON text it was sent, and keeps what it was sent. */
function recordingMill() {
  const sent: Array<{ json: string; maxDepth: number; partChars: number }> = []
  const mill = {
    run: async (task: string, input: { json: string; maxDepth: number; partChars: number }) => {
      expect(task).toBe('access.canonical_json')
      sent.push(input)
      return TASKS['access.canonical_json'](input)
    },
  } as unknown as Mill
  return { mill, sent }
}

/** The canonical bytes as text, checked to be what the loop would store for that text (same parts and digest). */
async function canonicalPinJson(value: unknown, maxDepth: number, mill: Mill, owner: string | null): Promise<string | null> {
  const bytes = await canonicalPinBytes(value, maxDepth, mill, owner)
  if (bytes === null) return null
  const text = Buffer.concat(bytes.parts).toString()
  expect(bytes).toEqual(pinBytesOf(text))
  return text
}

const nested = (levels: number, leaf: unknown = 0): unknown => {
  let value = leaf
  for (let i = 0; i < levels; i++) value = { d: value }
  return value
}

describe('canonicalPinJson', () => {
  it('makes a small value canonical on the loop', async () => {
    const { mill, sent } = recordingMill()
    expect(await canonicalPinJson({ b: [1, 2.5, 'x'], a: { d: null, c: true } }, 8, mill, null)).toBe('{"a":{"c":true,"d":null},"b":[1,2.5,"x"]}')
    expect(await canonicalPinJson(nested(9), 8, mill, null)).toBeNull()
    expect(sent).toHaveLength(0)
  })

  it('sends a large value to the mill as its JSON text, written over many loop turns', async () => {
    const { mill, sent } = recordingMill()
    const wide = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${59_999 - i}`, i % 7 === 0 ? `é😀${i}` : i / 3]))
    const { value, turns } = await turnsDuring(() => canonicalPinJson(wide, 8, mill, null))
    expect(value).toBe(canonicalJson(wide))
    expect(sent).toHaveLength(1)
    expect(JSON.parse(sent[0]!.json)).toEqual(wide)
    // 60k members at 4,096 a turn.
    expect(turns).toBeGreaterThanOrEqual(14)
  })

  it('answers null from the mill for a large value nested deeper than the limit', async () => {
    const { mill, sent } = recordingMill()
    const deep = { pad: 'x'.repeat(INLINE_JSON_CHARS), deep: nested(3_000) }
    expect(await canonicalPinJson(deep, 256, mill, null)).toBeNull()
    expect(await canonicalPinJson({ pad: 'x'.repeat(INLINE_JSON_CHARS), deep: nested(255) }, 256, mill, null)).toMatch(/^\{"deep":\{"d":/)
    expect(sent).toHaveLength(2)
  })
})
