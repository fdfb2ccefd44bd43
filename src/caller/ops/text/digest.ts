// POST /digest: message digests (and optional HMACs) of UTF-8 text or base64 bytes.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import {
  DIGEST_ALGORITHM_NAMES,
  digestChunksPaced,
  type DigestAlgorithm,
} from '../../../engines/digest/digest.js'
import { nextTurn } from '../../../sched/turns.js'
import { base64Chunks, checkStrictBase64, CHUNK_CHARS, decodeStrictBase64, utf8Chunks } from '../../../engines/digest/base64.js'

const algorithm = z.enum(DIGEST_ALGORITHM_NAMES)
const encoded = z.object({ hex: z.string(), base64: z.string() })
const perAlgorithm = z.object(
  Object.fromEntries(DIGEST_ALGORITHM_NAMES.map((name) => [name, encoded.optional()])) as Record<
    DigestAlgorithm,
    z.ZodOptional<typeof encoded>
  >,
)

const STRICT_BASE64 = 'standard base64 (RFC 4648 §4: A–Z a–z 0–9 + /, padded with "=", no whitespace)'

const input = z
  .object({
    content: z.string().optional().describe('Text to digest, hashed as its UTF-8 bytes'),
    content_base64: z.string().optional().describe(`Bytes to digest, as ${STRICT_BASE64}`),
    algorithms: z
      .array(algorithm)
      .min(1)
      .max(DIGEST_ALGORITHM_NAMES.length * 2)
      .optional()
      .describe('Defaults to ["sha256"]; repeated names are answered once'),
    hmac_key: z.string().min(1).optional().describe('HMAC key as UTF-8 text: adds an HMAC per algorithm'),
    hmac_key_base64: z.string().min(1).optional().describe(`HMAC key as ${STRICT_BASE64}`),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = (v.content !== undefined ? 1 : 0) + (v.content_base64 !== undefined ? 1 : 0)
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given === 0 ? ['content'] : ['content_base64'],
        message: given === 0 ? 'give content (UTF-8 text) or content_base64' : 'give content or content_base64, not both',
      })
    }
    if (v.hmac_key !== undefined && v.hmac_key_base64 !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['hmac_key_base64'], message: 'give hmac_key or hmac_key_base64, not both' })
    }
    for (const field of ['content_base64', 'hmac_key_base64'] as const) {
      const text = v[field]
      if (text === undefined) continue
      const check = checkStrictBase64(text)
      if (!check.ok) ctx.addIssue({ code: 'custom', path: [field], message: `not ${STRICT_BASE64}: ${check.problem}` })
    }
  })

const bytesOf = (text: string | undefined, base64: string | undefined): Buffer | undefined => {
  if (text !== undefined) return Buffer.from(text, 'utf8')
  if (base64 === undefined) return undefined
  const check = decodeStrictBase64(base64)
  if (!check.ok) throw new Error('base64 was checked by the input schema')
  return check.bytes
}

export const digest = defineOperation({
  name: 'digest',
  method: 'POST',
  path: '/digest',
  lobe: 'text',
  caption: 'Hex and base64 digests (sha256, sha512, sha384, sha1, md5, sha3-256, blake2b512) and HMACs',
  summary:
    'Hashes UTF-8 text (content) or bytes (content_base64, strictly checked: junk characters, missing padding and ' +
    'non-canonical endings are refused rather than skipped) with node:crypto. Default algorithm sha256. With hmac_key ' +
    '(or hmac_key_base64) also gives an HMAC per algorithm. md5 and sha1 are offered for checksums, not for security.',
  input,
  output: z.object({
    bytes: z.number().int().describe('Length of the digested bytes'),
    input_encoding: z.enum(['utf-8', 'base64']),
    algorithms: z.array(algorithm),
    digests: perAlgorithm,
    hmacs: perAlgorithm.optional(),
  }),
  provenance: ['computed'],
  bodyLimit: 'large',
  examples: [
    { content: 'abc' },
    { content: 'abc', algorithms: ['sha256', 'sha3-256', 'blake2b512', 'md5'], hmac_key: 'key' },
    { content_base64: 'AAEC/w==', algorithms: ['sha1'] },
  ],
  handler: async (input) => {
    const algorithms: DigestAlgorithm[] = [...new Set(input.algorithms ?? (['sha256'] as DigestAlgorithm[]))]
    // Hashed as a stream of 1 MiB chunks: a 15 MB body is never copied whole into bytes.
    const chunks = input.content !== undefined ? utf8Chunks(input.content) : base64Chunks(input.content_base64!)
    const key = bytesOf(input.hmac_key, input.hmac_key_base64)
    // A body over one chunk is hashed a chunk and an algorithm per turn of the loop (0.2 s at once for 15 MB × 7).
    const large = (input.content ?? input.content_base64!).length > CHUNK_CHARS
    const report = await digestChunksPaced(chunks, algorithms, key, large ? nextTurn : async () => {})
    return {
      bytes: report.bytes,
      input_encoding: input.content !== undefined ? ('utf-8' as const) : ('base64' as const),
      algorithms,
      digests: report.digests,
      ...(report.hmacs ? { hmacs: report.hmacs } : {}),
    }
  },
})
