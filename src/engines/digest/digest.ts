// Message digests and HMACs of a byte string with node:crypto, reported in hex and base64.
import { createHash, createHmac } from 'node:crypto'

/** Public algorithm names, each with the OpenSSL name node:crypto knows it by. */
export const DIGEST_ALGORITHMS = {
  sha256: 'sha256',
  sha512: 'sha512',
  sha384: 'sha384',
  sha1: 'sha1',
  md5: 'md5',
  'sha3-256': 'sha3-256',
  blake2b512: 'blake2b512',
} as const

export type DigestAlgorithm = keyof typeof DIGEST_ALGORITHMS
export const DIGEST_ALGORITHM_NAMES = Object.keys(DIGEST_ALGORITHMS) as [DigestAlgorithm, ...DigestAlgorithm[]]

export interface EncodedDigest {
  hex: string
  base64: string
}

export interface DigestReport {
  bytes: number
  digests: Partial<Record<DigestAlgorithm, EncodedDigest>>
  hmacs?: Partial<Record<DigestAlgorithm, EncodedDigest>>
}

const encode = (digest: Buffer): EncodedDigest => ({ hex: digest.toString('hex'), base64: digest.toString('base64') })

/** Digests (and, given a key, HMACs) of `bytes` for each distinct algorithm, in the order asked. */
export function digestBytes(bytes: Uint8Array, algorithms: readonly DigestAlgorithm[], hmacKey?: Uint8Array): DigestReport {
  const unique = [...new Set(algorithms)]
  const digests: DigestReport['digests'] = {}
  for (const name of unique) digests[name] = encode(createHash(DIGEST_ALGORITHMS[name]).update(bytes).digest())
  const report: DigestReport = { bytes: bytes.byteLength, digests }
  if (hmacKey) {
    const hmacs: NonNullable<DigestReport['hmacs']> = {}
    for (const name of unique) hmacs[name] = encode(createHmac(DIGEST_ALGORITHMS[name], hmacKey).update(bytes).digest())
    report.hmacs = hmacs
  }
  return report
}
