import { describe, expect, it } from 'vitest'
import { DIGEST_ALGORITHM_NAMES, digestBytes } from './digest.js'
import { decodeStrictBase64 } from './base64.js'

const utf8 = (s: string) => Buffer.from(s, 'utf8')
const hexOf = (s: string, algorithm: (typeof DIGEST_ALGORITHM_NAMES)[number]) =>
  digestBytes(utf8(s), [algorithm]).digests[algorithm]!.hex

// Published vectors: FIPS 180-4 examples ("abc", ""), RFC 1321 §A.5, FIPS 202 / NIST examples, RFC 7693 Appendix A.
describe('digests against published test vectors', () => {
  it.each([
    ['sha256', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['sha256', '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['sha256', 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
    ['sha384', 'abc', 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7'],
    ['sha512', 'abc', 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'],
    ['sha512', '', 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e'],
    ['sha1', 'abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ['sha1', '', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
    ['md5', '', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['md5', 'abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['md5', 'message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['md5', '12345678901234567890123456789012345678901234567890123456789012345678901234567890', '57edf4a22be3c955ac49da2e2107b67a'],
    ['sha3-256', 'abc', '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532'],
    ['sha3-256', '', 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a'],
    ['blake2b512', 'abc', 'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923'],
  ] as const)('%s(%j)', (algorithm, input, expected) => {
    expect(hexOf(input, algorithm)).toBe(expected)
  })

  it('reports base64 of the same bytes as hex, and the byte length', () => {
    const report = digestBytes(utf8('abc'), ['sha256'])
    expect(report.bytes).toBe(3)
    expect(Buffer.from(report.digests.sha256!.base64, 'base64').toString('hex')).toBe(report.digests.sha256!.hex)
    expect(report.digests.sha256!.base64).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=')
  })

  it('counts bytes, not characters', () => {
    expect(digestBytes(utf8('é€😀'), ['md5']).bytes).toBe(2 + 3 + 4)
  })

  it('lists each algorithm once even when asked twice', () => {
    expect(Object.keys(digestBytes(utf8('x'), ['md5', 'sha1', 'md5']).digests)).toEqual(['md5', 'sha1'])
  })
})

// RFC 4231 §4 test cases 1, 2 and 6 (HMAC-SHA-256/384/512).
describe('HMAC against RFC 4231', () => {
  const case1 = { key: Buffer.alloc(20, 0x0b), data: utf8('Hi There') }
  const case2 = { key: utf8('Jefe'), data: utf8('what do ya want for nothing?') }
  const case6 = { key: Buffer.alloc(131, 0xaa), data: utf8('Test Using Larger Than Block-Size Key - Hash Key First') }

  it('test case 1', () => {
    const { hmacs } = digestBytes(case1.data, ['sha256', 'sha384', 'sha512'], case1.key)
    expect(hmacs!.sha256!.hex).toBe('b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7')
    expect(hmacs!.sha384!.hex).toBe('afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6')
    expect(hmacs!.sha512!.hex).toBe('87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854')
  })

  it('test case 2', () => {
    const { hmacs } = digestBytes(case2.data, ['sha256', 'sha512'], case2.key)
    expect(hmacs!.sha256!.hex).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
    expect(hmacs!.sha512!.hex).toBe('164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737')
  })

  it('test case 6 (key longer than the block)', () => {
    const { hmacs } = digestBytes(case6.data, ['sha256'], case6.key)
    expect(hmacs!.sha256!.hex).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54')
  })

  it('gives HMACs only when a key is given', () => {
    expect(digestBytes(case2.data, ['sha256']).hmacs).toBeUndefined()
  })
})

describe('strict base64', () => {
  it.each([
    ['', ''],
    ['YWJj', 'abc'],
    ['YWI=', 'ab'],
    ['YQ==', 'a'],
    ['+/8=', '\u00fb\u00ff'],
  ])('decodes %j', (text, latin1) => {
    const result = decodeStrictBase64(text)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.bytes.toString('latin1')).toBe(latin1)
  })

  it.each([
    ['YWJj!', /"!" at offset 4/],
    ['YW Jj', /a space at offset 2/],
    ['YWJj\n', /whitespace at offset 4/],
    ['YWJ', /not a multiple of 4/],
    ['YQ', /not a multiple of 4/],
    ['Y===', /not canonical|padding/],
    ['YQ==YWJj', /padding and may only end/],
    ['YR==', /not canonical/],
    ['YWJj_-', /"_" at offset 4/],
  ])('refuses %j', (text, problem) => {
    const result = decodeStrictBase64(text)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.problem).toMatch(problem)
  })
})

describe('streamed digests', () => {
  it('equal the digest of the whole bytes, also when a surrogate pair straddles a chunk boundary', async () => {
    const { utf8Chunks, base64Chunks } = await import('./base64.js')
    const { digestChunks } = await import('./digest.js')
    const text = 'a'.repeat((1 << 20) - 1) + '😀' + 'é'.repeat(1000)
    const whole = digestBytes(Buffer.from(text, 'utf8'), ['sha256', 'md5'], Buffer.from('k'))
    expect(digestChunks(utf8Chunks(text), ['sha256', 'md5'], Buffer.from('k'))).toEqual(whole)
    const b64 = Buffer.from(text, 'utf8').toString('base64')
    expect(digestChunks(base64Chunks(b64), ['sha256', 'md5'], Buffer.from('k'))).toEqual(whole)
  })
  it('paced: the same report, with a pause after each chunk fed to each hash and HMAC', async () => {
    const { utf8Chunks } = await import('./base64.js')
    const { digestChunks, digestChunksPaced } = await import('./digest.js')
    const text = 'z'.repeat(3 * (1 << 20) + 5)
    let pauses = 0
    const paced = await digestChunksPaced(utf8Chunks(text), ['sha256', 'sha512', 'md5'], Buffer.from('k'), async () => void pauses++)
    expect(paced).toEqual(digestChunks(utf8Chunks(text), ['sha256', 'sha512', 'md5'], Buffer.from('k')))
    expect(pauses).toBe(4 * 3 * 2)
  })
})
