// A text as UTF-8 bytes in parts with their SHA-256, encoded and hashed a part at a time (a content-addressed store's
// unit of writing): pure, so it runs on the loop for a short text and in the mill for a long one.
import { createHash } from 'node:crypto'
import { utf8Chunks } from './base64.js'

export interface HashedParts {
  parts: Buffer[]
  size: number
  /** `sha256:` and the hex digest of all the parts' bytes in order. */
  digest: string
}

/** A cut between parts never splits a surrogate pair; an empty text is one empty part. */
export function hashedUtf8Parts(text: string, partChars: number): HashedParts {
  const hash = createHash('sha256')
  const parts: Buffer[] = []
  let size = 0
  for (const part of utf8Chunks(text, partChars)) {
    hash.update(part)
    parts.push(part)
    size += part.byteLength
  }
  if (parts.length === 0) parts.push(Buffer.alloc(0))
  return { parts, size, digest: 'sha256:' + hash.digest('hex') }
}
