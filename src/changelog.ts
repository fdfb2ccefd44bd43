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
