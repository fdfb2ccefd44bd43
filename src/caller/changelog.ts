// The caller contract's changelog as data, newest first: /upgrade reads it; a test checks it against CHANGELOG.md.

export const CHANGE_KINDS = ['added', 'changed', 'deprecated', 'removed', 'fixed', 'security'] as const
export type ChangeKind = (typeof CHANGE_KINDS)[number]

export interface ChangelogEntry {
  version: string
  /** ISO date (YYYY-MM-DD) of the release. */
  date: string
  summary: string
  changes: Partial<Record<ChangeKind, string[]>>
}

export const CHANGELOG: readonly ChangelogEntry[] = [
  {
    version: '1.1.0',
    date: '2026-11-27',
    summary: 'Checked UNSAT proofs, hard search budgets, assumptions with cores and model enumeration; capacity figures that follow each model\'s own config and the hardware\'s real usable bytes; examples and documented refusals in the OpenAPI document; one access policy for every door, with owners for jobs and keys and per-client shares.',
    changes: {
      added: [
        '`/sat`: `proof` (`drat`, `lrat` or `none`). An UNSAT answer carries `proof` `{ format, steps, bytes, sha256, url }` and is `verified: true` only when the service\'s own independent checker accepted the proof (`checker` names it; `verification.reason` says why not otherwise).',
        '`/sat`: hard budgets `max_conflicts`, `max_decisions` and `max_propagations` beside `timeout_ms`; the search stops at the first one reached and answers `UNKNOWN` with `stopped_by` naming it and the counts reached.',
        '`/sat`: `assumptions` solve under literals without changing the formula; UNSAT under them answers `core`, the failed assumptions. `models: k` enumerates up to k distinct models, each checked (`enumeration`).',
        '`/jsonsat`: the same `proof` and budgets, and `want_cnf`, the Tseitin CNF it solved (`cnf.sha256`, `cnf.url`).',
        '`/pin/text`: a pinned text, such as a proof, read as `text/plain`.',
        'Capacity operations take `config` (a Hugging Face `config.json`) or `overrides` beside a preset, and `devices.gpu` presets with each card\'s real usable bytes; `arch` gains `layer_types`, `mla`, `shared_experts`, `dense_layers` and `dense_intermediate`. New preset `deepseek-v2-lite`.',
        '`/fit`: a stated serving model (`runtime`, `prefill_chunk`, `gpu_memory_utilization`, `max_num_batched_tokens`, `max_num_seqs`, `block_size`, `pipeline_parallel`, `margin_percent`), training for a `batch` × `context` (`zero_stage`, `gradient_checkpointing`, `follows`), quantised weight formats with `group_size`; every component names its `formula` and `source`, and the largest batch, the longest context and the cheapest fitting format name their limiter.',
        '`/peft` and `/adapters`: `follows` names the transformers and PEFT layout counted; `/peft` computes `memory.activations`. `/kv`: `window_applied`, `layout`, `runtime` and `source`, and a numeric `sliding_window`.',
        '`/help`: each operation\'s `needs`, the credential its curl line sends.',
        '`/sat` and `/clauses` take a `text/plain` DIMACS body, with the other fields in the query string.',
        '`/openapi.json`: request examples on every operation, one documented response per refusal status, and a bearer security scheme.',
        'Jobs: `cancel_url` in the job view, and a unique prefix of four or more characters names a job.',
        'Refusal code `request_timeout` (408): a request body not received within `SLOW_CLIENT_MS` (30 s by default) is refused and its connection closed.',
      ],
      changed: [
        '`/kv`, `/card` and `/fit` apply a model\'s own sliding windows (per layer where layers alternate) by default; `sliding_window: false` turns them off.',
        '`/peft` on Mixtral counts LoRA as PEFT 0.21 does on transformers 5\'s fused experts (179.8 M trainable for all-linear r=8); the transformers 4 layout is `follows.transformers: "4.x"`.',
        '`/fit` no longer adds a flat 20 % of the weights; a given `overhead_percent` becomes a `declared_overhead` component. A verdict never exceeds what the card holds under the stated serving model (an 80 GB H100 fits llama-2-7b at 4,096 tokens up to batch 31).',
        '`stopped_by` of `/sat` and `/jsonsat` widens to `deadline`, `conflicts`, `decisions` and `propagations`.',
        'A full disk is refused `occupied` with a reason saying so and `retry_after_s`, never `internal`, and turns `/health` to `fail` (a store whose filesystem is already under 1 MiB or 1 % free refuses a write that adds rows before it begins; updates and deletes still run); a transient store fault (a connection cut, a lost conflict, a busy database) is retried, and answered `occupied` with `retry_after_s` when retries run out.',
        '`/pin`, `/run` and `/cli` take bodies up to the default 1 MiB (`BODY_LIMIT_BYTES`), as SPEC §1.5 gives 16 MiB only to `/sat`, `/jsonsat`, `/clauses`, `/quiz`, `/digest`, `/diff` and CSV import; a `payload_too_large` refusal names the route\'s limit in its reason and in `hints` (`limit`, `value`).',
        'Large bodies and answers that grow with their input reserve memory per client and in total (`MEMORY_ADMISSION_BYTES`, `MEMORY_PER_CLIENT_BYTES`); past either the request is refused `occupied` with `retry_after_s` at once instead of waiting in line. A streamed answer (a large answer, job events, a CSV download) whose client stops reading is ended after `SLOW_CLIENT_MS`.',
        'A request body over 64 KiB is parsed in the mill, the worker pool that runs heavy work, and counts in the client\'s share of it (`JOBS_PER_CLIENT`); when the mill\'s queue is full it is refused `occupied` with `retry_after_s`. It never waits behind heavy work: the pool keeps a worker that heavy work does not take.',
        '`/run` and `/cli`: `RUN_BATCH_MAX_WEIGHT` counts the bytes of JSON the batch\'s answers come to (it counted nodes × 8 + characters); each item\'s `data` is written through its operation\'s own output schema, as that operation\'s route writes it (members in the schema\'s order, undeclared keys dropped).',
        '`/pin` reading a JSON pin: `json` is written from the pin\'s stored canonical text as it is, so an object\'s keys keep the canonical (RFC 8785) order, where array-index keys (`"9"`, `"10"`) came first in numeric order before; the value is the same.',
        'A request\'s work that waits for a mill worker while heavy work holds every one is refused `occupied` with `retry_after_s` after 60 s (the longest a task may run), where it waited without a deadline; a job\'s work waits on in its job\'s place.',
      ],
      fixed: [
        '`/pin/text` and `/skills.md` choose between their rendering and the JSON envelope by the Accept\'s q-values and specificity (RFC 9110 §12.5.1), where any Accept naming `application/json` got JSON: `text/plain, application/json;q=0` and `application/json;q=0.1, text/plain;q=0.9` now get the text, `application/*` gets JSON; no Accept or `*/*` still gets the rendering. The trading routes\' `Accept: text/csv` downloads use the same negotiation.',
        'A pin read (`/pin` by digest, `/pin/text`, `GET /api/v1/admin/pins/{digest}`, MCP\'s `pin` tool and pin resource) reserves memory for the pin\'s stored size (7 bytes a stored byte and 4 KiB, at most `LARGE_BODY_LIMIT_BYTES`) once the pin is looked up, where every read reserved `LARGE_BODY_LIMIT_BYTES` before: many reads of small pins at once are no longer refused `occupied`, while reads of a large pin still are past `MEMORY_PER_CLIENT_BYTES` or `MEMORY_ADMISSION_BYTES`. A pin write reserves nothing beyond its body.',
      ],
      security: [
        'One access policy decides every door: HTTP routes, `/run` and `/cli` items, MCP tools and resources, job reads and event streams. MCP `resources/list` and `resources/read` of pins need `admin:read`, as over HTTP.',
        'Jobs and `Idempotency-Key`s belong to the principal that made them: the same key from another principal names its own job, and another principal\'s job, result, events and cancel answer `not_found`.',
        'Work that runs in the mill needs `run:heavy` on a host with credentials (`HEAVY_ACCESS=scoped`, the default).',
        'Per-client shares of the job queue (`JOBS_PER_CLIENT`), the mill, event streams (job events and MCP streams together) and MCP sessions; past a share the refusal is early and typed, with `retry_after_s` where waiting helps. The MCP body limit counts the bytes read, chunked bodies included.',
        'A NUL character (U+0000) in a path parameter, query, cursor or body member is refused `invalid_input` before it reaches the store, on SQLite and PostgreSQL alike.',
        'A host with no `ADMIN_TOKEN` answers only requests addressed to it by an address, `localhost`, `HOST` or `PUBLIC_URL` (`forbidden` otherwise: DNS rebinding).',
      ],
    },
  },
  {
    version: '1.0.0',
    date: '2026-11-22',
    summary: 'The initial contract.',
    changes: {
      added: [
        'The envelope of every `/api/v1` response: `ok`, `surface` ("marketing-caller"), `ncm`, `hub`, `occupancy` (live-bound, shedding, draining), `service_owns_hardware` (false), `invented_metrics` (false), `sat_perp_hal` (true), `refuse`, `data`.',
        'Refusals `{ code, reason, op?, http_status, retry_after_s?, issues? }` with the codes invalid_input, unauthorized, forbidden, not_found, conflict, payload_too_large, over_limit, rate_limited, token_completion_unavailable, timeout, occupied and internal.',
        'Discovery (GET): `/`, `/health`, `/capabilities`, `/map`, `/features`, `/honesty`, `/agents`, `/help`, `/onion`, `/openapi.json`, `/skills`, `/skills.md`, `/surface`, `/labs`, `/lexicon`, `/inventory`, `/detect`, `/env`, `/lobes`, `/captions`, `/ops`.',
        'Logic (POST): `/sat`, `/jsonsat`, `/clauses`, `/quiz`.',
        'Capacity (POST): `/kv`, `/fit`, `/peft`, `/adapters`, `/budget`, `/pack`, `/occupancy`, `/card`.',
        'Text (POST): `/digest`, `/diff`.',
        'Access (POST): `/grant`, `/pin`, `/upgrade`.',
        'Orchestration (POST): `/run`, `/cli`, `/chat` (always refused with token_completion_unavailable).',
        'Runtime (POST): `/race`.',
      ],
    },
  },
]
