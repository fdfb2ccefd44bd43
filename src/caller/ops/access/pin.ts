// POST /pin: content-addressed, immutable storage — pin text or JSON (scope pin:write), read it back by digest, re-hashed.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { pinMembers, pinRepository, readPin, type PinMediaType, type VerifiedPin } from '../../../access/pins.js'
import { pinBytesFor } from '../../../access/pin-bytes.js'
import { canonicalPinBytes } from '../../../access/pin-json.js'
import { PIN_PART_CHARS, type PinBytes } from '../../../access/pin-parts.js'
import { CANONICAL, PIN_LIMITS, pinInput, pinInputAction, pinTooDeep } from '../../../inputs/pin.js'
import { splicedAnswer } from '../../../json/serializer.js'
import { bufferOf, type JsonBytes } from '../../../json/bytes.js'
import type { OperationContext } from '../../operation.js'

export { PIN_LIMITS }

/** What every pin answer says of the pin (pin_text reads the same record). */
export const meta = {
  digest: z.string(),
  size: z.number().int().describe('Bytes stored'),
  media_type: z.enum(['text/plain', 'application/json']),
  label: z.string().nullable(),
  created_at: z.string().describe('When the content was first pinned'),
}

/** A pin read back: its content (and a JSON pin's value) written off the loop when large, spliced into the rest. */
const readAnswer = z.object({
  action: z.literal('read'),
  ...meta,
  verified: z.literal(true),
  content: z.string().describe('The stored bytes as UTF-8 text'),
  json: z.unknown().optional().describe('The parsed value, for application/json pins'),
})

/** A pin read's answer as the route writes it: the record here, the content (and json) as the read wrote them. */
export const pinReadAnswer = (read: VerifiedPin): JsonBytes =>
  splicedAnswer(readAnswer, { action: 'read', ...read.record, verified: true }, pinMembers(read))

export const pin = defineOperation({
  name: 'pin',
  method: 'POST',
  path: '/pin',
  lobe: 'access',
  caption: 'Pin text or JSON by its SHA-256 (scope pin:write); read a pin back, re-hashed',
  summary:
    '{ content | json, label? } stores the bytes under "sha256:<hex>" of those bytes and answers the digest, size and ' +
    `first pin time; the same content always gives the same digest, and pinning it again changes nothing. JSON is pinned ` +
    `in its ${CANONICAL} form, so equal values share a digest whatever their key order. Writing needs scope pin:write. ` +
    '{ digest } (public) answers the content after hashing the stored bytes again (verified: true); bytes that no ' +
    'longer match their digest are withheld and refused with conflict. An unknown digest is not_found.',
  input: pinInput,
  output: z.discriminatedUnion('action', [
    z.object({
      action: z.literal('pinned'),
      ...meta,
      created: z.boolean().describe('False when this content was already pinned'),
      canonicalization: z.string().nullable().describe('How json was serialised before hashing; null for content'),
    }),
    readAnswer,
  ]),
  provenance: ['stored', 'computed'],
  // Not largeAnswer: a read reserves memory for the pin's stored size once it is known (hashedPin), a write nothing.
  refusals: ['not_found', 'conflict', 'over_limit'],
  action: 'pin.read',
  inputAction: pinInputAction,
  // The read example reads what the first one pins (examples run in order on one host).
  examples: [
    { content: 'hello, pinned world\n', label: 'greeting' },
    { json: { b: [1, 2], a: 'x' } },
    { digest: 'sha256:cdee2ebd9fb3469f980f065206301cb120af225b87a396f6ff78074e9121156b' },
  ],
  // A body over 64 KiB is read, checked, made canonical and hashed in the mill from its bytes; the loop stores the parts.
  fromBody: async (body, ctx, read) => {
    const plan = await read(ctx.mill.run('access.pinBody', { ...body.payload, partChars: PIN_PART_CHARS }, body.options))
    if ('digest' in plan) return pinRead(plan.digest, ctx)
    // A Buffer that crossed from a worker arrives as a Uint8Array over the moved memory.
    return pinWrite({ ...plan.parts, parts: plan.parts.parts.map(bufferOf) }, plan.json, plan.label, ctx)
  },
  handler: async (input, ctx) => {
    if (input.digest !== undefined) return pinRead(input.digest.toLowerCase(), ctx)
    const isJson = input.json !== undefined
    // The depth limit is checked where the canonical form is made (in the mill for a large value): finding the depth
    // walks the whole value.
    const bytes = isJson
      ? await canonicalPinBytes(input.json, PIN_LIMITS.jsonDepth, ctx.mill, ctx.principal.owner)
      : await pinBytesFor(input.content!, ctx.mill, ctx.principal.owner)
    if (bytes === null) throw pinTooDeep()
    return pinWrite(bytes, isJson, input.label ?? null, ctx)
  },
})

async function pinRead(digest: string, ctx: OperationContext): Promise<JsonBytes> {
  return pinReadAnswer(await readPin(pinRepository(ctx.store.sql), digest, { mill: ctx.mill, owner: ctx.principal.owner, op: 'pin', hold: ctx.holdAnswer }))
}

async function pinWrite(bytes: PinBytes, isJson: boolean, label: string | null, ctx: OperationContext) {
  const mediaType: PinMediaType = isJson ? 'application/json' : 'text/plain'
  const { record, created } = await pinRepository(ctx.store.sql).put(bytes, mediaType, label, ctx.clock.now())
  return { action: 'pinned' as const, ...record, created, canonicalization: isJson ? CANONICAL : null }
}
