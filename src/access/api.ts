// Grants and pins read back under /api/v1/admin (enveloped like the rest of /api/v1): grants listed without their
// tokens or hashes, pins listed and read. With ADMIN_TOKEN set they need the admin token or a grant with admin:read.
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { okEnvelope, refusalEnvelope } from '../http/envelope.js'
import { pageAnswer, pagedList, pageQueryFields, pageSchema, type PageQuery } from '../http/paging.js'
import { SCOPES } from './tokens.js'
import { grantRepository, type GrantListing } from './grants.js'
import { splicedAnswer } from '../json/serializer.js'
import { PIN_DIGEST, PIN_MEDIA_TYPES, pinMembers, pinRepository, readPin, type PinRecord } from './pins.js'

const PREFIX = '/api/v1/admin'
const responses = <T extends z.ZodType>(data: T) => ({ 200: okEnvelope(data), '4xx': refusalEnvelope, '5xx': refusalEnvelope })
const PAGING = 'Paged: `limit` (1–500, default 50) and `cursor` (the `next_cursor` of the previous page; null on the last). A bad cursor is ' +
  'refused with invalid_input (400), a limit over 500 with over_limit (422).'

const GRANTS = pagedList<GrantListing>('grants', ['string', 'string'], (g) => [g.created_at, g.id])
const PINS = pagedList<PinRecord>('pins', ['string', 'string'], (p) => [p.created_at, p.digest])

const grantItem = z.object({
  id: z.string(),
  subject: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  created_at: z.string(),
  expires_at: z.string(),
  expired: z.boolean().describe('expires_at has passed'),
  revoked_at: z.string().nullable(),
  revoked: z.boolean(),
  last_used_at: z.string().nullable().describe('last request it authenticated, to the minute; null if never used'),
})

const pinMeta = {
  digest: z.string(),
  size: z.number().int().describe('bytes stored'),
  media_type: z.enum(PIN_MEDIA_TYPES),
  label: z.string().nullable(),
  created_at: z.string(),
}

const pageQuery = z.object({ ...pageQueryFields })

// Handlers return `data`; the caller plugin wraps it in the envelope the response schemas describe (so no type provider here).
export default async function accessApi(app: FastifyInstance) {
  const grants = grantRepository(app.store.sql)
  const pins = pinRepository(app.store.sql)
  const now = () => app.clock.now()

  app.get('/grants', {
    schema: {
      tags: ['admin'], summary: `${PREFIX}/grants`,
      description: `Grants issued by POST /api/v1/grant, newest first: subject, scopes, expiry, last use, revocation — never the token or its hash. ${PAGING}`,
      querystring: pageQuery,
      response: responses(pageSchema('grants', grantItem)),
    },
  }, async (req) => {
    const at = now()
    return pageAnswer('grants', await GRANTS.read(req.query as PageQuery, (r) => grants.page(r.after, r.limit)), (g) => ({
      id: g.id, subject: g.subject, scopes: g.scopes, created_at: g.created_at, expires_at: g.expires_at,
      expired: Date.parse(g.expires_at) <= at, revoked_at: g.revoked_at, revoked: g.revoked_at !== null, last_used_at: g.last_used_at,
    }))
  })

  app.get('/pins', {
    schema: {
      tags: ['admin'], summary: `${PREFIX}/pins`,
      description: `Pins (POST /api/v1/pin), newest first, without their content: digest, size, media type, label. ${PAGING}`,
      querystring: pageQuery,
      response: responses(pageSchema('pins', z.object(pinMeta))),
    },
  }, async (req) => pageAnswer('pins', await PINS.read(req.query as PageQuery, (r) => pins.page(r.after, r.limit))))

  const pinRead = z.object({ ...pinMeta, verified: z.literal(true), content: z.string(), json: z.unknown().optional() })
  app.get('/pins/:digest', {
    schema: {
      tags: ['admin'], summary: `${PREFIX}/pins/{digest}`,
      description: 'One pin with its content, the stored bytes hashed again on read (a pin whose bytes no longer match is refused with conflict).',
      params: z.object({ digest: z.string().regex(PIN_DIGEST, 'must be "sha256:" followed by 64 lowercase hex digits') }),
      response: responses(pinRead),
    },
  }, async (req) => {
    // The content may be megabytes (a pin stored before bodies were capped): hashed and escaped in the mill, spliced in.
    // As every pin read, it reserves memory for the pin's stored size until sent (hashedPin, the memory admission).
    const read = await readPin(pins, (req.params as { digest: string }).digest, {
      mill: app.mill, owner: req.principal.owner, op: 'admin pin read', hold: (bytes) => req.holdAnswer(bytes),
    })
    return splicedAnswer(pinRead, { ...read.record, verified: true }, pinMembers(read))
  })
}
