// Strict base64 (RFC 4648 §4: standard alphabet, padded, no whitespace) — Buffer.from alone skips junk silently.

export type Base64Check = { ok: true; bytes: Buffer } | { ok: false; problem: string }
export type Base64Problem = { ok: true } | { ok: false; problem: string }

const ALPHABET = /[^A-Za-z0-9+/=]/

/** Decodes `text` only if it is canonical base64; otherwise says what is wrong and where. */
export function decodeStrictBase64(text: string): Base64Check {
  const check = checkStrictBase64(text)
  return check.ok ? { ok: true, bytes: Buffer.from(text, 'base64') } : check
}

/**
 * Whether `text` is canonical base64, without decoding it: only the last quantum can hold padding or unused bits,
 * so only it is decoded and re-encoded (a 15 MB body no longer costs two full copies to check).
 */
export function checkStrictBase64(text: string): Base64Problem {
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
  const last = text.slice(-4)
  // Re-encoding catches what the checks above let through: "=" inside the last quantum, non-zero unused bits.
  if (Buffer.from(last, 'base64').toString('base64') !== last) {
    return { ok: false, problem: 'not canonical base64 (misplaced padding or non-zero unused bits in the last character)' }
  }
  return { ok: true }
}

/** Chunk size of streamed decoding and hashing: large inputs are never copied whole. */
export const CHUNK_CHARS = 1 << 20

/** The bytes of canonical base64 `text`, decoded 1 MiB of text at a time. */
export function* base64Chunks(text: string): Generator<Buffer> {
  for (let i = 0; i < text.length; i += CHUNK_CHARS) yield Buffer.from(text.slice(i, i + CHUNK_CHARS), 'base64')
}

/**
 * Where a slice of `text` from `at`, at most `maxChars` long, ends without splitting a surrogate pair (UTF-8 encoding
 * or JSON.stringify of each half alone would differ from the whole's).
 */
export function pairSafeEnd(text: string, at: number, maxChars: number): number {
  const end = Math.min(text.length, at + maxChars)
  const last = text.charCodeAt(end - 1)
  return end < text.length && end - 1 > at && last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

/** Whether `text` has no lone surrogate, i.e. UTF-8 can store it (String.prototype.isWellFormed is past ES2023's lib). */
export const isWellFormed = (text: string): boolean =>
  (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed.call(text)

/** The UTF-8 bytes of `text`, encoded `chunkChars` (about 1 Mi) characters at a time, never splitting a surrogate pair. */
export function* utf8Chunks(text: string, chunkChars: number = CHUNK_CHARS): Generator<Buffer> {
  for (let i = 0; i < text.length; ) {
    const end = pairSafeEnd(text, i, chunkChars)
    yield Buffer.from(text.slice(i, end), 'utf8')
    i = end
  }
}
