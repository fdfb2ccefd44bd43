// GET /lexicon: every term the API uses, with a one-line definition.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'

export const LEXICON: Record<string, string> = {
  SAT: 'Boolean satisfiability: is there an assignment of true/false to variables that makes a formula true?',
  CNF: 'Conjunctive normal form: an AND of clauses, each an OR of literals.',
  DIMACS: 'The plain-text CNF format: a "p cnf <vars> <clauses>" header, then clauses as signed integers ending in 0.',
  literal: 'A variable (positive integer) or its negation (negative integer).',
  clause: 'An OR of literals; satisfied when at least one literal is true.',
  CDCL: 'Conflict-driven clause learning: the search algorithm of modern SAT solvers.',
  UIP: 'Unique implication point: the cut in the implication graph from which a learned clause is built.',
  VSIDS: 'Variable state independent decaying sum: the activity heuristic that picks the next decision variable.',
  LBD: 'Literal block distance: the number of decision levels in a learned clause; a quality measure for clause deletion.',
  Tseitin: 'An encoding of an arbitrary Boolean formula into equisatisfiable CNF with one fresh variable per sub-formula.',
  HAL: 'Hardware abstraction layer; sat_perp_hal means the solver has no hardware path and behaves the same everywhere.',
  'KV cache': 'The keys and values of past tokens kept per attention layer during generation: 2 × layers × kv heads × head dim × tokens × bytes.',
  GQA: 'Grouped-query attention: fewer key/value heads than query heads, which shrinks the KV cache.',
  MoE: 'Mixture of experts: several feed-forward experts per layer, of which a few are active per token.',
  LoRA: 'Low-rank adaptation: a frozen weight W plus a trainable product B·A of rank r; r·(d_in + d_out) parameters per matrix.',
  QLoRA: 'LoRA on a base model quantised to 4-bit NormalFloat (NF4), with double quantisation of the scales.',
  PEFT: 'Parameter-efficient fine-tuning: training a small set of added or selected parameters instead of all weights.',
  NF4: '4-bit NormalFloat: a quantisation grid built from the quantiles of a normal distribution.',
  dtype: 'The numeric format of stored values (fp32, fp16, bf16, fp8, int8, int4/nf4) and so its bytes per value.',
  BPE: 'Byte-pair encoding: the tokenizer family (cl100k_base, o200k_base) used to count tokens.',
  occupancy: 'For the host: its admission mode (live-bound, shedding, draining). For a CUDA kernel: active warps per SM over the maximum.',
  carveout: 'The share of an SM\'s unified L1/shared memory a kernel prefers as shared memory; the hardware rounds it up to a supported size.',
  'tensor parallel': 'Splitting each weight matrix across devices so every device holds and computes a slice of every layer.',
  'bin packing': 'Placing items of given sizes into the fewest bins of a given capacity; first-fit-decreasing and best-fit-decreasing are the classic heuristics.',
  SM: 'Streaming multiprocessor: the unit of a GPU that runs thread blocks.',
  warp: 'A group of 32 GPU threads that execute together.',
  'compute capability': "An NVIDIA GPU architecture's version (e.g. 8.0 for A100, 9.0 for H100), which fixes its per-SM limits.",
  refusal: 'A typed answer saying what the host will not do and why: code, reason, HTTP status.',
  envelope: 'The wrapper every /api/v1 response carries: ok, surface, versions, occupancy, the honesty flags, refuse, data.',
  provenance: 'Where a number comes from: computed, measured, stored or declared (with a source).',
  mill: 'The worker-thread pool that runs heavy operations with a time budget, away from the event loop.',
  lobe: 'A group of related operations: discovery, logic, capacity, text, access, orchestration, runtime.',
  onion: 'The layers a request passes, from transport to storage, each able to refuse it.',
  grant: 'A bearer token with scopes and an expiry, issued by the admin; only its hash is stored.',
  scope: 'A permission carried by a grant: pin:write, run:heavy, admin:read, trading:write.',
  pin: 'Content stored under its own SHA-256 digest; re-hashed on every read.',
  digest: 'A fixed-size hash of content (sha256, sha512, sha3-256, blake2b512…).',
  'unified diff': 'The text format of changes (---/+++ headers, @@ hunks) that GNU patch applies.',
  'JSON Patch': 'RFC 6902: a list of add/remove/replace operations on JSON Pointer paths.',
  WASM: 'WebAssembly: a portable bytecode run by the JavaScript engine; used here to race kernels against TypeScript.',
  SIMD: 'Single instruction, multiple data: vector instructions (WASM v128).',
  semver: 'Semantic versioning: major.minor.patch; a major change breaks compatibility.',
  backtest: 'Replaying a trading strategy over past bars with fills, commissions and statistics.',
  'paper trading': 'Simulated orders and fills in a ledger; nothing is sent to a market.',
}

function sortedTerms() {
  const collator = new Intl.Collator('en', { sensitivity: 'base' })
  const terms = Object.entries(LEXICON)
    .map(([term, definition]) => ({ term, definition }))
    .sort((a, b) => collator.compare(a.term, b.term))
  return { terms, count: terms.length }
}
let sorted: ReturnType<typeof sortedTerms> | undefined

export const lexicon = defineOperation({
  name: 'lexicon',
  method: 'GET',
  path: '/lexicon',
  lobe: 'discovery',
  caption: 'Glossary of every term the API uses',
  summary: 'One-line definitions: SAT, CNF, DIMACS, Tseitin, HAL, KV cache, LoRA, PEFT, occupancy, refusal, provenance, mill and more.',
  input: noInput,
  output: z.object({ terms: z.array(z.object({ term: z.string(), definition: z.string() })), count: z.number().int() }),
  provenance: ['declared'],
  examples: [{}],
  // Sorted once: localeCompare with a locale builds a collator per comparison (~1 ms an answer, 30-40 ms of the loop
  // for 30 parallel GETs).
  handler: () => (sorted ??= sortedTerms()),
})
