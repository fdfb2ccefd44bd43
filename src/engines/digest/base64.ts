// Strict base64 (RFC 4648 §4: standard alphabet, padded, no whitespace) — Buffer.from alone skips junk silently.

export type Base64Check = { ok: true; bytes: Buffer } | { ok: false; problem: string }

const ALPHABET = /[^A-Za-z0-9+/=]/

/** Decodes `text` only if it is canonical base64; otherwise says what is wrong and where. */
export function decodeStrictBase64(text: string): Base64Check {
  const bad = ALPHABET.exec(text)
  if (bad) {
    const shown = bad[0] === ' ' ? 'a space' : /\s/.test(bad[0]) ? 'whitespace' : JSON.stringify(bad[0])
    return { ok: false, problem: `${shown} at offset ${bad.index} is not in the base64 alphabet` }
  }
  if (text.length % 4 !== 0) {
    return { ok: false, problem: `length ${text.length} is not a multiple of 4 (base64 must be padded with "=")` }
  }
  const padAt = text.indexOf('=')
  if (padAt !== -1 && padAt < text.length - 2) {
    return { ok: false, problem: `"=" at offset ${padAt} is padding and may only end the text` }
  }
  const bytes = Buffer.from(text, 'base64')
  // Re-encoding catches what the checks above let through: "=" inside the last quantum, non-zero unused bits.
  if (bytes.toString('base64') !== text) {
    return { ok: false, problem: 'not canonical base64 (misplaced padding or non-zero unused bits in the last character)' }
  }
  return { ok: true, bytes }
}
