// Known-answer tests of the truth summary: each request, the answer published elsewhere, and where it was published.
// The expected values are written down here from their sources, never computed by the code under test.
import { applyJsonPatch, applyUnifiedDiff, type JsonPatchOp } from './patch.js'

export interface KnownAnswerCase {
  name: string
  method: 'GET' | 'POST'
  /** Full URL of the route under test. */
  url: string
  source: string
  body: unknown
  /** Requests made first (each must answer 2xx), e.g. importing the dataset a backtest reads. */
  prepare?: Array<{ method: 'POST'; url: string; body: unknown }>
  /** false for routes outside /api/v1, whose answer is the data itself rather than an envelope. */
  envelope?: boolean
  /** null when the answer is right; otherwise what is wrong with it. */
  check(data: any): string | null
}

/** JSON with object keys sorted, so equality does not depend on key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )

const expectEqual = (what: string, got: unknown, want: unknown): string | null =>
  canonical(got) === canonical(want) ? null : `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`

const firstFailure = (...results: Array<string | null>): string | null => results.find((r) => r !== null) ?? null

// --- digests -----------------------------------------------------------------------------------------------------
const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
const ABC_SHA512 =
  'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'
const ABC_SHA1 = 'a9993e364706816aba3e25717850c26c9cd0d89d'
const ABC_MD5 = '900150983cd24fb0d6963f7d28e17f72'
const MSG448 = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'
const MSG448_SHA256 = '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'

// --- SAT -------------------------------------------------------------------------------------------------------------
/** A 3-variable formula with a unique model x1=F, x2=T, x3=T (checked clause by clause below the table). */
const SMALL_SAT = { vars: 3, clauses: [[1, 2], [-1, 2], [-2, 3], [-3, -1]] }
/** Pigeonhole PHP(3,2): 3 pigeons, 2 holes; p(i,j) = 2(i-1)+j. Unsatisfiable by the pigeonhole principle. */
const PHP_3_2 = {
  vars: 6,
  clauses: [[1, 2], [3, 4], [5, 6], [-1, -3], [-1, -5], [-3, -5], [-2, -4], [-2, -6], [-4, -6]],
}
const dimacs = (f: { vars: number; clauses: number[][] }, comment: string) =>
  `c ${comment}\np cnf ${f.vars} ${f.clauses.length}\n${f.clauses.map((c) => `${c.join(' ')} 0`).join('\n')}\n`

/** Checks a model against the formula independently of the solver: every variable once, every clause satisfied. */
export function checkModel(f: { vars: number; clauses: number[][] }, model: unknown): string | null {
  if (!Array.isArray(model)) return 'no model returned'
  const value = new Map<number, boolean>()
  for (const lit of model) {
    if (!Number.isInteger(lit) || lit === 0 || Math.abs(lit) > f.vars) return `model literal ${JSON.stringify(lit)} is out of range`
    if (value.has(Math.abs(lit))) return `variable ${Math.abs(lit)} appears twice in the model`
    value.set(Math.abs(lit), lit > 0)
  }
  if (value.size !== f.vars) return `the model assigns ${value.size} of ${f.vars} variables`
  const falsified = f.clauses.findIndex((clause) => !clause.some((lit) => value.get(Math.abs(lit)) === lit > 0))
  return falsified < 0 ? null : `clause ${falsified + 1} (${f.clauses[falsified]!.join(' ')}) is false under the model`
}

// --- CUDA occupancy ------------------------------------------------------------------------------------------------
// Oracle answers of cudaOccMaxActiveBlocksPerMultiprocessor from NVIDIA's cuda_occupancy.h (CUDA 13.0 header,
// sha256 163b8f29…), as recorded in test/fixtures/occupancy/cases.json; compute capability 8.0 has 64 warps per SM.
const OCCUPANCY_SOURCE = "NVIDIA cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor), CC 8.0; oracle run recorded in test/fixtures/occupancy/cases.json"
const occupancyCases: Array<{ label: string; input: Record<string, unknown>; blocks: number; warps: number; limiter: string }> = [
  { label: 'block-count limited', input: { threads_per_block: 32, registers_per_thread: 16 }, blocks: 32, warps: 32, limiter: 'blocks' },
  { label: 'register limited', input: { threads_per_block: 1024, registers_per_thread: 40 }, blocks: 1, warps: 32, limiter: 'registers' },
  { label: 'shared-memory limited', input: { threads_per_block: 128, registers_per_thread: 32, shared_mem_dynamic_bytes: 16384 }, blocks: 9, warps: 36, limiter: 'shared_memory' },
]

// --- diff ------------------------------------------------------------------------------------------------------------
const DIFF_A = 'alpha\nbeta\ngamma\ndelta\n'
const DIFF_B = 'alpha\nBETA\ngamma\ndelta\nepsilon\n'
const JSON_A = { name: 'ncm', tags: ['a', 'b'], limits: { sat: 1 } }
const JSON_B = { name: 'ncm-hub', tags: ['a', 'b', 'c'], limits: {}, ok: true }

// --- backtest -------------------------------------------------------------------------------------------------------
/** Five flat daily bars (open = high = low = close): every figure below follows by hand. */
const TRUTH_CSV = [
  'Date,Open,High,Low,Close,Volume',
  '2024-01-01,100,100,100,100,1000',
  '2024-01-02,100,100,100,100,1000',
  '2024-01-03,110,110,110,110,1000',
  '2024-01-04,120,120,120,120,1000',
  '2024-01-05,130,130,130,130,1000',
].join('\n') + '\n'
export const TRUTH_DATASET = { symbol: 'NCM-TRUTH', timeframe: '1d' }

export const KNOWN_ANSWER_CASES: KnownAnswerCase[] = [
  {
    name: 'digest: "abc" (sha256, sha512, sha1, md5)',
    method: 'POST',
    url: '/api/v1/digest',
    source: 'FIPS 180-2 appendices B.1 (SHA-256) and C.1 (SHA-512), RFC 3174 §7.3 test 1 (SHA-1), RFC 1321 appendix A.5 (MD5)',
    body: { content: 'abc', algorithms: ['sha256', 'sha512', 'sha1', 'md5'] },
    check: (d) =>
      firstFailure(
        expectEqual('bytes', d?.bytes, 3),
        expectEqual('sha256', d?.digests?.sha256?.hex, ABC_SHA256),
        expectEqual('sha512', d?.digests?.sha512?.hex, ABC_SHA512),
        expectEqual('sha1', d?.digests?.sha1?.hex, ABC_SHA1),
        expectEqual('md5', d?.digests?.md5?.hex, ABC_MD5),
      ),
  },
  {
    name: 'digest: 448-bit message (sha256)',
    method: 'POST',
    url: '/api/v1/digest',
    source: 'FIPS 180-2 appendix B.2 (SHA-256, two-block message)',
    body: { content: MSG448 },
    check: (d) => firstFailure(expectEqual('bytes', d?.bytes, 56), expectEqual('sha256', d?.digests?.sha256?.hex, MSG448_SHA256)),
  },
  {
    name: 'sat: satisfiable 3-variable formula',
    method: 'POST',
    url: '/api/v1/sat',
    source: 'hand-checked: the only model is x1=false, x2=true, x3=true',
    body: { dimacs: dimacs(SMALL_SAT, 'truth: unique model -1 2 3') },
    check: (d) =>
      firstFailure(
        expectEqual('status', d?.status, 'SAT'),
        checkModel(SMALL_SAT, d?.model),
        expectEqual('model', d?.model, [-1, 2, 3]),
        expectEqual('verified', d?.verified, true),
      ),
  },
  {
    name: 'sat: pigeonhole PHP(3,2) is unsatisfiable',
    method: 'POST',
    url: '/api/v1/sat',
    source: 'the pigeonhole principle: 3 pigeons do not fit 2 holes one per hole (Cook & Reckhow 1979 use PHP as the standard hard UNSAT family)',
    body: { dimacs: dimacs(PHP_3_2, 'truth: PHP(3,2)') },
    check: (d) => expectEqual('status', d?.status, 'UNSAT'),
  },
  ...occupancyCases.map((c): KnownAnswerCase => ({
    name: `occupancy: ${c.label}`,
    method: 'POST',
    url: '/api/v1/occupancy',
    source: OCCUPANCY_SOURCE,
    body: { compute_capability: '8.0', ...c.input },
    check: (d) =>
      firstFailure(
        expectEqual('active_blocks_per_sm', d?.active_blocks_per_sm, c.blocks),
        expectEqual('active_warps_per_sm', d?.active_warps_per_sm, c.warps),
        expectEqual('occupancy', d?.occupancy, c.warps / 64),
        expectEqual('limiter', d?.limiter, c.limiter),
      ),
  })),
  {
    name: 'diff: unified diff applies back (lines)',
    method: 'POST',
    url: '/api/v1/diff',
    source: 'round trip: the unified diff of a→b, applied to a by an independent applier, must give b; 2 lines added, 1 removed',
    body: { a: DIFF_A, b: DIFF_B, mode: 'lines' },
    check: (d) => {
      if (typeof d?.unified !== 'string') return 'no unified diff returned'
      let patched: string
      try {
        patched = applyUnifiedDiff(DIFF_A, d.unified)
      } catch (err) {
        return `the unified diff does not apply: ${(err as Error).message}`
      }
      return firstFailure(expectEqual('patched text', patched, DIFF_B), expectEqual('added', d.added, 2), expectEqual('removed', d.removed, 1))
    },
  },
  {
    name: 'diff: RFC 6902 patch applies back (json)',
    method: 'POST',
    url: '/api/v1/diff',
    source: 'round trip: the JSON Patch of a→b, applied to a by an independent RFC 6902 applier, must give b',
    body: { a: JSON_A, b: JSON_B, mode: 'json' },
    check: (d) => {
      if (!Array.isArray(d?.patch)) return 'no JSON patch returned'
      try {
        return expectEqual('patched document', applyJsonPatch(JSON_A, d.patch as JsonPatchOp[]), JSON_B)
      } catch (err) {
        return `the JSON patch does not apply: ${(err as Error).message}`
      }
    },
  },
  {
    name: 'backtest: buy and hold on five hand-made bars',
    method: 'POST',
    url: '/api/v11/trading/backtest',
    source:
      'backtesting.py 0.6.6 semantics, worked by hand: next() first runs on the 2nd bar (Backtest.run starts after the ' +
      'warm-up, here none), a market order fills at the next bar\'s open (110), the default size is (1 − ε) of equity in ' +
      'whole units: int(10000·(1 − 2⁻⁵²) // 110) = 90; equity at the end 10000 − 90·110 + 90·130 = 11800 (+18 %); ' +
      'buy & hold 100 → 130 = +30 %; 4 days. Imports the dataset NCM-TRUTH@1d first and stores the run, as every ' +
      'backtest does — in the self-test host\'s throwaway store, never the user\'s.',
    prepare: [{ method: 'POST', url: '/api/v11/datasets', body: { ...TRUTH_DATASET, csv: TRUTH_CSV } }],
    body: { dataset: `${TRUTH_DATASET.symbol}@${TRUTH_DATASET.timeframe}`, strategy: 'buy_and_hold', cash: 10_000, commission: 0, include: ['trades'] },
    envelope: false,
    check: (d) =>
      firstFailure(
        expectEqual('stats.equity_final', d?.stats?.equity_final, 11_800),
        expectEqual('stats.return_pct', d?.stats?.return_pct, 18),
        expectEqual('stats.buy_hold_return_pct', d?.stats?.buy_hold_return_pct, 30),
        expectEqual('stats.duration_days', d?.stats?.duration_days, 4),
        expectEqual('stats.max_drawdown_pct', Math.abs(d?.stats?.max_drawdown_pct ?? NaN), 0),
        expectEqual('trades[0] size and entry', d?.trades?.[0] && [d.trades[0].size, d.trades[0].entry_price, d.trades[0].entry_time], [90, 110, '2024-01-03T00:00:00.000Z']),
      ),
  },
]
