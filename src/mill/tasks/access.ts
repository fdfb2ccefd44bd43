// Mill tasks of the access domain: a pinned JSON value's canonical form, and a pin's stored bytes hashed and written as
// a JSON string, whose costs grow with the value or the bytes.
import { createHash } from 'node:crypto'
import type { TaskTable } from '../types.js'
import { canonicalWithin } from '../../engines/digest/canonical-json.js'
import { utf8AsJsonString } from '../../json/bytes.js'
import { movable, moving } from '../moving.js'
import { hashedUtf8Parts, type HashedParts } from '../../engines/digest/utf8-parts.js'
import { PIN_LIMITS, pinInput, pinInputAction, pinTooDeep } from '../../inputs/pin.js'
import { workFromBody, type BodyBlocksPayload, type FromBodyResult } from './from-body.js'
import type { TaskResult } from './task-result.js'

/** What /pin's body asks: a pin read by its digest, or a write of these parts (a JSON value's canonical text, or a text). */
export type PinBodyPlan = { digest: string } | { parts: HashedParts; label: string | null; json: boolean }

export interface PinReadPayload {
  /** The pin's stored parts in order, moved here (RunOptions.transfer). */
  parts: Uint8Array[]
  /** The digest they were stored under. */
  digest: string
  /** Write the text as a JSON string; false: only count its characters (a reader that needs the text itself, small). */
  write: boolean
  /** Check that the bytes are one JSON value (a JSON pin's, which answers splice in as they are). */
  json: boolean
}

export interface PinReadOutcome {
  /** sha256 of the bytes as stored now; differs from the digest if they were changed behind the store's back. */
  actualDigest: string
  /** The stored parts, given back as they came (a JSON pin's `json` member, a text pin's text/plain answer). */
  stored: Uint8Array[]
  /** The text's length in UTF-16 units; 0 when the digest does not match. */
  chars: number
  /** The text as a JSON string's bytes (quotes included), when asked and the digest matches; else null. */
  content: Uint8Array[] | null
  /** With `json`: whether the bytes parse as one JSON value (false also when the digest does not match); else null. */
  jsonValid: boolean | null
}

/** Run on the loop for a small pin (access/pins.ts), in a worker for a larger one: the same bytes either way. */
export function pinRead({ parts, digest, write, json }: PinReadPayload): PinReadOutcome {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  const actualDigest = 'sha256:' + hash.digest('hex')
  // Bytes that no longer match are withheld: not decoded at all.
  const written = actualDigest === digest ? utf8AsJsonString(parts, write) : { chars: 0, chunks: null }
  const matches = actualDigest === digest
  const outcome: PinReadOutcome = {
    actualDigest, stored: parts, chars: written.chars, content: written.chunks, jsonValid: json ? matches && isOneJsonValue(parts) : null,
  }
  const buffers = new Set<ArrayBuffer>()
  for (const view of [...parts, ...(written.chunks ?? [])]) if (view.buffer instanceof ArrayBuffer) buffers.add(view.buffer)
  return moving(outcome, [...buffers])
}

/** The media type is not covered by the digest: a row changed behind the store's back must not splice text that is not JSON. */
function isOneJsonValue(parts: readonly Uint8Array[]): boolean {
  try {
    JSON.parse(Buffer.concat(parts).toString('utf8'))
    return true
  } catch {
    return false
  }
}

export const accessTasks = {
  /**
   * A JSON value's canonical text, as the bytes to pin; null when nested deeper than maxDepth. The value comes as JSON
   * text (a structured clone of a deep value never arrives).
   */
  'access.canonical_json': ({ json, maxDepth, partChars }: { json: string; maxDepth: number; partChars: number }): HashedParts | null => {
    const text = canonicalWithin(JSON.parse(json), maxDepth)
    return text === null ? null : movedParts(text, partChars)
  },
  'access.pin_read': pinRead,
  /**
   * /pin from a large body's bytes: read as its route reads it (a write asks pin.write), then the text or the JSON
   * value's canonical form encoded and hashed here; the loop stores the parts, or reads the digest's pin.
   */
  'access.pinBody': ({ partChars, ...body }: BodyBlocksPayload & { partChars: number }): FromBodyResult<PinBodyPlan, 'pin.write'> =>
    workFromBody(body, pinInput, (input): TaskResult<PinBodyPlan> => {
      if (input.digest !== undefined) return { ok: true, value: { digest: input.digest.toLowerCase() }, warnings: [] }
      const text = input.json === undefined ? input.content! : canonicalWithin(input.json, PIN_LIMITS.jsonDepth)
      if (text === null) throw pinTooDeep()
      const parts = movedParts(text, partChars)
      const value = { parts, label: input.label ?? null, json: input.json !== undefined }
      // Each part is a buffer of its own (movedParts): they move with the answer.
      return moving({ ok: true, value, warnings: [] }, parts.parts.map((part) => part.buffer as ArrayBuffer))
    }, pinInputAction),
  /** A long text to pin, encoded and hashed here. */
  'access.pin_bytes': ({ text, partChars }: { text: string; partChars: number }): HashedParts => movedParts(text, partChars),
} satisfies TaskTable

/** A text encoded and hashed here, its parts moving back (each its own buffer, never a shared pool's). */
function movedParts(text: string, partChars: number): HashedParts {
  const hashed = hashedUtf8Parts(text, partChars)
  const { views, transfer } = movable(hashed.parts)
  return moving({ ...hashed, parts: views.map((view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength)) }, transfer)
}
