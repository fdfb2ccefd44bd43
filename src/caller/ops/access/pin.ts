// POST /pin: content-addressed, immutable storage — pin text or JSON (scope pin:write), read it back by digest, re-hashed.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { PIN_DIGEST, pinMembers, pinRepository, readPin, type PinMediaType, type VerifiedPin } from '../../../access/pins.js'
import { pinBytesFor } from '../../../access/pin-bytes.js'
import { canonicalPinBytes } from '../../../access/pin-json.js'
import { isWellFormed } from '../../../engines/digest/base64.js'
import { splicedAnswer } from '../../../json/serializer.js'
import type { JsonBytes } from '../../../json/bytes.js'

export const PIN_LIMITS = {
  /** Nesting depth of a pinned JSON value. */
  jsonDepth: 256,
} as const

const CANONICAL = 'RFC 8785 JSON Canonicalization Scheme (sorted keys, no whitespace, ECMAScript number form)'

const input = z
  .object({
    content: z.string().optional().describe('Text to pin, stored as its UTF-8 bytes (media type text/plain)'),
    json: z.unknown().optional().describe(`A JSON value to pin, stored in its ${CANONICAL} form (application/json)`),
    label: z.string().min(1).max(200).optional().describe('A note kept with a new pin (the first pin of some content keeps its label)'),
    digest: z.string().optional().describe('"sha256:<64 hex digits>": read a pin instead of writing one'),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = ['content', 'json', 'digest'].filter((k) => v[k as keyof typeof v] !== undefined)
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length === 0 ? ['content'] : [given[1]!],
        message:
          given.length === 0
            ? 'give content or json to pin, or digest to read'
            : `give exactly one of content, json and digest (got ${given.join(', ')})`,
      })
    }
    if (v.digest !== undefined && !PIN_DIGEST.test(v.digest.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['digest'], message: 'must be "sha256:" followed by 64 hex digits' })
    }
    if (v.digest !== undefined && v.label !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['label'], message: 'label is kept when pinning; a read takes only digest' })
    }
    if (v.content !== undefined && !isWellFormed(v.content)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'has a lone surrogate, which UTF-8 cannot store; pin it as json instead' })
    }
  })

const isWrite = (raw: unknown): boolean =>
  raw !== null && typeof raw === 'object' && ('content' in raw || 'json' in raw)

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
  input,
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
  textMembers: ['json'],
  // Not largeAnswer: a read reserves memory for the pin's stored size once it is known (hashedPin), a write nothing.
  refusals: ['not_found', 'conflict', 'over_limit'],
  action: 'pin.read',
  inputAction: (raw) => (isWrite(raw) ? 'pin.write' : null),
  // The read example reads what the first one pins (examples run in order on one host).
  examples: [
    { content: 'hello, pinned world\n', label: 'greeting' },
    { json: { b: [1, 2], a: 'x' } },
    { digest: 'sha256:cdee2ebd9fb3469f980f065206301cb120af225b87a396f6ff78074e9121156b' },
  ],
  handler: async (input, ctx) => {
    const repo = pinRepository(ctx.store.sql)
    if (input.digest !== undefined) {
      return pinReadAnswer(await readPin(repo, input.digest.toLowerCase(), { mill: ctx.mill, owner: ctx.principal.owner, op: 'pin', hold: ctx.holdAnswer }))
    }
    const isJson = input.json !== undefined
    // The depth limit is checked where the canonical form is made (in the mill for a large value): finding the depth
    // walks the whole value.
    const bytes = isJson
      ? await canonicalPinBytes(input.json, PIN_LIMITS.jsonDepth, ctx.mill, ctx.principal.owner)
      : await pinBytesFor(input.content!, ctx.mill, ctx.principal.owner)
    if (bytes === null) throw new Refusal('over_limit', `json is nested deeper than the limit of ${PIN_LIMITS.jsonDepth} levels`)
    const mediaType: PinMediaType = isJson ? 'application/json' : 'text/plain'
    const { record, created } = await repo.put(bytes, mediaType, input.label ?? null, ctx.clock.now())
    return { action: 'pinned' as const, ...record, created, canonicalization: isJson ? CANONICAL : null }
  },
})
