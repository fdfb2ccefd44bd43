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
  return digestChunks([bytes], algorithms, hmacKey)
}

/** The same over a byte string given in chunks: every hash is fed chunk by chunk, so no chunk outlives its turn. */
export function digestChunks(chunks: Iterable<Uint8Array>, algorithms: readonly DigestAlgorithm[], hmacKey?: Uint8Array): DigestReport {
  const state = digestState(algorithms, hmacKey)
  for (const chunk of chunks) {
    state.bytes += chunk.byteLength
    for (const h of state.all) h.update(chunk)
  }
  return state.report()
}

/**
 * digestChunks with `pause()` awaited after every chunk fed to every hash: 15 MB through seven algorithms and their
 * HMACs is ~0.2 s of hashing, which a caller on the event loop spreads over turns of a few milliseconds each.
 */
export async function digestChunksPaced(
  chunks: Iterable<Uint8Array>,
  algorithms: readonly DigestAlgorithm[],
  hmacKey: Uint8Array | undefined,
  pause: () => Promise<void>,
): Promise<DigestReport> {
  const state = digestState(algorithms, hmacKey)
  for (const chunk of chunks) {
    state.bytes += chunk.byteLength
    for (const h of state.all) {
      h.update(chunk)
      await pause()
    }
  }
  return state.report()
}

/** One hash (and HMAC, given a key) per distinct algorithm, fed alike; the report in the order asked. */
function digestState(algorithms: readonly DigestAlgorithm[], hmacKey?: Uint8Array) {
  const unique = [...new Set(algorithms)]
  const hashes = unique.map((name) => createHash(DIGEST_ALGORITHMS[name]))
  const hmacs = hmacKey ? unique.map((name) => createHmac(DIGEST_ALGORITHMS[name], hmacKey)) : []
  const encodeAll = (list: Array<{ digest(): Buffer }>) => Object.fromEntries(unique.map((name, i) => [name, encode(list[i]!.digest())]))
  const state = {
    bytes: 0,
    all: [...hashes, ...hmacs],
    report(): DigestReport {
      const report: DigestReport = { bytes: state.bytes, digests: encodeAll(hashes) }
      if (hmacKey) report.hmacs = encodeAll(hmacs)
      return report
    },
  }
  return state
}
