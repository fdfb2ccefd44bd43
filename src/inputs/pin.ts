// POST /pin's input: read by its route on the loop and, for a large body, by the mill (mill/tasks/access.ts).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import { isWellFormed } from '../engines/digest/base64.js'

/** A pin's name: its digest. */
export const PIN_DIGEST = /^sha256:[0-9a-f]{64}$/

export const PIN_LIMITS = {
  /** Nesting depth of a pinned JSON value. */
  jsonDepth: 256,
} as const

export const CANONICAL = 'RFC 8785 JSON Canonicalization Scheme (sorted keys, no whitespace, ECMAScript number form)'

export const pinInput = z
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

export type PinInput = z.output<typeof pinInput>

/** A body that pins (content or json) is a pin write: asked of the value before its validation, on every door. */
export const pinInputAction = (raw: unknown): 'pin.write' | null =>
  raw !== null && typeof raw === 'object' && ('content' in raw || 'json' in raw) ? 'pin.write' : null

/** The refusal of a JSON value nested deeper than a pin's limit (found where its canonical form is made). */
export const pinTooDeep = (): Refusal => new Refusal('over_limit', `json is nested deeper than the limit of ${PIN_LIMITS.jsonDepth} levels`)
