// GET /pin/text: a pinned text as it is stored (text/plain unless JSON is asked for) — how proofs and CNFs of SAT
// answers are fetched. Public, like every pin read; the stored bytes are hashed again on read.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { PIN_DIGEST, pinRepository, readPin } from '../../../access/pins.js'
import { RenderedBytes } from '../../../json/bytes.js'
import { splicedAnswer } from '../../../json/serializer.js'
import { meta } from './pin.js'

const input = z
  .object({
    digest: z.string().regex(PIN_DIGEST, 'must be "sha256:" followed by 64 lowercase hex digits').describe('"sha256:<64 hex digits>" of the pin'),
  })
  .strict()

const output = z.object({
  ...meta,
  verified: z.literal(true).describe('The stored bytes hash to the digest (checked on this read)'),
  content: z.string().describe('The stored bytes as UTF-8 text'),
})

export const pinText = defineOperation({
  name: 'pin_text',
  method: 'GET',
  path: '/pin/text',
  lobe: 'access',
  caption: 'Read a pinned text as it is stored (text/plain): the proofs and CNFs of SAT answers',
  summary:
    'Answers the pin with this digest as its stored bytes, with Content-Type text/plain (the JSON envelope when the client ' +
    'asks for application/json). The bytes are hashed again on read; bytes that no longer match are withheld (conflict). ' +
    'UNSAT answers of /sat and /jsonsat name their proof here (proof.url), and /jsonsat its CNF (cnf.url): anyone with the ' +
    'digest can read it, like every pin, and a proof is as secret as its formula (the solver is deterministic).',
  input,
  output,
  provenance: ['stored'],
  // Not largeAnswer: the read reserves memory for the pin's stored size once it is known (hashedPin).
  refusals: ['not_found', 'conflict'],
  examples: [{ digest: 'sha256:cdee2ebd9fb3469f980f065206301cb120af225b87a396f6ff78074e9121156b' }],
  render: { contentType: 'text/plain; charset=utf-8', body: (data) => data.content },
  handler: async (i, ctx) => {
    // Hashed (and written as JSON) in the mill when large; text/plain sends the stored bytes as they are, and the JSON
    // envelope the content as the mill wrote it: neither decodes the text here. A JSON pin answers its text alone.
    const read = await readPin(pinRepository(ctx.store.sql), i.digest, { mill: ctx.mill, owner: ctx.principal.owner, op: 'pin_text', hold: ctx.holdAnswer })
    return new RenderedBytes(splicedAnswer(output, { ...read.record, verified: true }, { content: read.content }), read.stored)
  },
})
