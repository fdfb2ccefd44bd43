// POST /grant: the admin issues a bearer token for a subject and scopes (shown once; only its hash is kept), or revokes one.
import { z } from 'zod'
import { defineOperation, type OperationContext } from '../../operation.js'
import { SCOPES } from '../../../access/tokens.js'
import { Refusal } from '../../../http/refusal.js'
import { grantRepository } from '../../../access/grants.js'

export const GRANT_LIMITS = {
  /** Longest lifetime of a token. */
  ttlS: 365 * 24 * 3600,
} as const

const scope = z.enum(SCOPES)

const input = z
  .object({
    subject: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters')
      .optional()
      .describe('Who the token is for (a name, a service, an e-mail address)'),
    scopes: z.array(scope).min(1).max(SCOPES.length * 2).optional().describe(`Any of ${SCOPES.join(', ')}`),
    ttl_s: z.number().int().positive().optional().describe(`Lifetime in seconds (at most ${GRANT_LIMITS.ttlS})`),
    revoke: z.string().min(1).max(100).optional().describe('Id of a grant to revoke (instead of issuing one)'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.revoke !== undefined) {
      for (const field of ['subject', 'scopes', 'ttl_s'] as const) {
        if (v[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'revoke takes no other field' })
      }
      return
    }
    for (const field of ['subject', 'scopes', 'ttl_s'] as const) {
      if (v[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required to issue a grant (or send { revoke: <grant id> })` })
      }
    }
  })

const grantFields = {
  id: z.string(),
  subject: z.string(),
  scopes: z.array(scope),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
}

export const grant = defineOperation({
  name: 'grant',
  method: 'POST',
  path: '/grant',
  lobe: 'access',
  caption: 'Issue (admin only) a bearer token for scopes, shown once; or revoke one',
  summary:
    `Needs "Authorization: Bearer <ADMIN_TOKEN>"; refused when ADMIN_TOKEN is not set. { subject, scopes, ttl_s } ` +
    'issues a token of 32 random bytes (base64url): it is in this answer only, and the host keeps just its SHA-256. ' +
    `Scopes: ${SCOPES.join(', ')}. { revoke: <grant id> } revokes a grant; a revoked or expired token is refused ` +
    '(unauthorized) from then on. Revoking twice is harmless and says so.',
  input,
  output: z.discriminatedUnion('action', [
    z.object({
      action: z.literal('issued'),
      ...grantFields,
      ttl_s: z.number().int(),
      token: z.string().describe('The bearer token; shown once, not stored'),
      token_type: z.literal('Bearer'),
    }),
    z.object({ action: z.literal('revoked'), ...grantFields, already_revoked: z.boolean() }),
  ]),
  provenance: ['stored'],
  // A grant cannot mint other grants: checked with the credential, before the input schema.
  action: 'grant.issue',
  refusals: ['not_found'],
  checkLimits: (input) => {
    if (input.ttl_s !== undefined && input.ttl_s > GRANT_LIMITS.ttlS) {
      throw new Refusal('over_limit', `ttl_s ${input.ttl_s} is over the limit of ${GRANT_LIMITS.ttlS} s (365 days)`)
    }
  },
  examples: [{ subject: 'ci-pipeline', scopes: ['pin:write'], ttl_s: 3600 }],
  handler: async (input, ctx) => {
    const repo = grantRepository(ctx.store.sql)
    const now = ctx.clock.now()
    if (input.revoke !== undefined) {
      const result = await repo.revoke(input.revoke, now)
      if (!result) throw new Refusal('not_found', `no grant has the id ${JSON.stringify(input.revoke)}`)
      return { action: 'revoked' as const, ...result.grant, already_revoked: result.alreadyRevoked }
    }
    const scopes = [...new Set(input.scopes!)]
    const { grant: record, token } = await repo.issue(input.subject!, scopes, input.ttl_s!, now)
    return { action: 'issued' as const, ...record, ttl_s: input.ttl_s!, token, token_type: 'Bearer' as const }
  },
})
