// Proofs and CNFs of SAT answers are stored as text pins (content-addressed, kept like every pin); the answer names them
// by SHA-256 and by the path that reads them back as text/plain.
import type { OperationContext } from '../../operation.js'
import { pinRepository } from '../../../access/pins.js'
import { PIN_PART_CHARS } from '../../../access/pin-parts.js'
import type { ProofBlob, TextBlob } from '../../../mill/tasks/sat-check.js'

/** Where a pinned text is read back as it is stored (the pin_text operation). */
export const PIN_TEXT_PATH = '/api/v1/pin/text'

export async function storeText(ctx: Pick<OperationContext, 'store' | 'clock'>, blob: TextBlob, label: string): Promise<{ sha256: string; url: string }> {
  const { text } = blob
  // The text is ASCII (DIMACS, DRAT, LRAT): a part of PIN_PART_CHARS bytes is a part of that many characters.
  const parts: Buffer[] = []
  for (let at = 0; at < text.byteLength || parts.length === 0; at += PIN_PART_CHARS) {
    parts.push(Buffer.from(text.buffer, text.byteOffset + at, Math.min(PIN_PART_CHARS, text.byteLength - at)))
  }
  const digest = `sha256:${blob.sha256}`
  await pinRepository(ctx.store.sql).put({ parts, size: blob.bytes, digest }, 'text/plain', label, ctx.clock.now())
  return { sha256: blob.sha256, url: `${PIN_TEXT_PATH}?digest=${digest}` }
}

/** The answer's proof: stored, then described by its format, size, digest and read path. */
export async function storedProof(ctx: Pick<OperationContext, 'store' | 'clock'>, proof: ProofBlob | null, op: string) {
  if (!proof) return null
  const { sha256, url } = await storeText(ctx, proof, `${proof.format.toUpperCase()} proof of an UNSAT answer of /${op}`)
  return { format: proof.format, steps: proof.steps, bytes: proof.bytes, sha256, url }
}
