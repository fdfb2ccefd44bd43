// POST /pack: bin packing of shards or jobs onto devices — FFD and BFD inline, an exact optimum in the mill.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { budgetOf, MAX_TIMEOUT_MS } from '../../../mill/pool.js'
import type { PackExactPayload } from '../../../mill/tasks/capacity.js'
import {
  bestFitDecreasing, EXACT_MAX_ITEMS, firstFitDecreasing, lowerBound, FIT_TOLERANCE, type Packing,
  type PackProblem,
} from '../../../engines/capacity/pack.js'

export const PACK_MAX_ITEMS = 5000
export const PACK_MAX_BINS = 5000
const EXACT_MAX_NODES = 200_000_000

const size = z.number().positive().max(1e15)

const input = z
  .object({
    items: z
      .array(z.union([size, z.object({ id: z.string().min(1).max(100), size }).strict()]))
      .min(1)
      .describe('Sizes, or {id, size} objects'),
    capacity: size.optional().describe('Identical bins of this capacity, as many as needed'),
    bins: z
      .array(z.union([size, z.object({ id: z.string().min(1).max(100), capacity: size }).strict()]))
      .min(1)
      .optional()
      .describe('A fixed list of bins (capacities, or {id, capacity}), each usable once'),
    exact: z
      .enum(['auto', 'always', 'never'])
      .default('auto')
      .describe(`auto: branch and bound when there are at most ${EXACT_MAX_ITEMS} items and the host is not shedding`),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time budget of the exact search (default 10 s)'),
  })
  .strict()

const packingOutput = z.object({
  bins_used: z.number().int(),
  bins: z.array(
    z.object({
      index: z.number().int(),
      id: z.string(),
      capacity: z.number(),
      load: z.number(),
      free: z.number(),
      items: z.array(z.string()),
    }),
  ),
  unplaced: z.array(z.string()),
  assignment: z.array(z.number().int()),
})

const output = z.object({
  items: z.number().int(),
  total_size: z.number(),
  capacity: z.number().nullable(),
  bins_available: z.number().int().nullable(),
  lower_bound: z.object({
    sum_bound: z.number().int().nullable(),
    l2_bound: z.number().int().nullable(),
    count_bound: z.number().int().nullable(),
    lower_bound: z.number().int().nullable(),
  }),
  ffd: packingOutput,
  bfd: packingOutput,
  exact: z.object({
    status: z.enum(['optimal', 'best_found', 'infeasible', 'unknown', 'skipped']),
    optimal: z.boolean(),
    proven_by: z.enum(['lower_bound', 'search']).nullable(),
    feasible: z.boolean().nullable(),
    nodes: z.number().int(),
    stopped_by: z.enum(['deadline', 'node_limit']).nullable(),
    reason: z.string().nullable(),
    packing: packingOutput.nullable(),
  }),
  best: z.enum(['exact', 'ffd', 'bfd']).nullable(),
  assumptions: z.array(z.string()),
})

type Input = z.output<typeof input>

function problemOf(i: Input) {
  const ids = i.items.map((it, k) => (typeof it === 'number' ? String(k) : it.id))
  const sizes = i.items.map((it) => (typeof it === 'number' ? it : it.size))
  const binIds = i.bins?.map((b, k) => (typeof b === 'number' ? `bin-${k}` : b.id)) ?? null
  const problem: PackProblem = i.bins
    ? { sizes, bins: i.bins.map((b) => (typeof b === 'number' ? b : b.capacity)) }
    : { sizes, capacity: i.capacity! }
  return { ids, sizes, binIds, problem }
}

function render(p: Packing, ids: string[], binIds: string[] | null) {
  return {
    bins_used: p.bins_used,
    bins: p.capacities
      .map((capacity, b) => ({
        index: b,
        id: binIds?.[b] ?? `bin-${b}`,
        capacity,
        load: p.loads[b]!,
        free: capacity - p.loads[b]!,
        items: p.assignment.flatMap((x, k) => (x === b ? [ids[k]!] : [])),
      }))
      .filter((b) => b.items.length > 0),
    unplaced: p.unplaced.map((k) => ids[k]!),
    assignment: p.assignment,
  }
}

export const pack = defineOperation({
  name: 'pack',
  method: 'POST',
  path: '/pack',
  lobe: 'capacity',
  caption: 'Bin packing: FFD, BFD, lower bounds and an exact optimum for small inputs',
  summary:
    'Packs items (shards, jobs) into identical bins of a capacity or into a list of bins: first-fit decreasing and ' +
    'best-fit decreasing, the lower bound ⌈Σ/capacity⌉ (with Martello–Toth L2 and an item-count bound), and for at most ' +
    `${EXACT_MAX_ITEMS} items an exact branch and bound run in the mill with a time budget: optimal is true only when ` +
    'proven (search finished, or a packing meets the lower bound). Refuses items larger than the capacity, both or ' +
    `neither of capacity and bins, and more than ${PACK_MAX_ITEMS} items or ${PACK_MAX_BINS} bins.`,
  input,
  output,
  provenance: ['computed'],
  checkLimits: (i) => {
    if (i.items.length > PACK_MAX_ITEMS) throw new Refusal('over_limit', `${i.items.length} items is over the limit of ${PACK_MAX_ITEMS}`)
    if (i.bins && i.bins.length > PACK_MAX_BINS) throw new Refusal('over_limit', `${i.bins.length} bins is over the limit of ${PACK_MAX_BINS}`)
    if (i.exact === 'always' && i.items.length > EXACT_MAX_ITEMS) {
      throw new Refusal('over_limit', `exact packing is limited to ${EXACT_MAX_ITEMS} items; got ${i.items.length}`)
    }
  },
  examples: [
    { items: [5, 7, 5, 2, 4, 2, 5, 1, 6], capacity: 10 },
    {
      items: [
        { id: 'shard-a', size: 30 }, { id: 'shard-b', size: 22 }, { id: 'shard-c', size: 18 }, { id: 'shard-d', size: 12 },
      ],
      bins: [{ id: 'gpu0', capacity: 40 }, { id: 'gpu1', capacity: 40 }, { id: 'gpu2', capacity: 24 }],
      exact: 'always',
      timeout_ms: 2000,
    },
  ],
  handler: async (i, ctx) => {
    if ((i.capacity === undefined) === (i.bins === undefined)) {
      throw new Refusal('invalid_input', 'give exactly one of capacity (identical bins) and bins (a list)', {
        issues: [{ path: i.capacity === undefined ? 'capacity' : 'bins', message: 'exactly one of capacity and bins is required' }],
      })
    }
    const { ids, sizes, binIds, problem } = problemOf(i)
    if (i.capacity !== undefined) {
      const tooBig = sizes.flatMap((s, k) => (s > i.capacity! * (1 + FIT_TOLERANCE) ? [ids[k]!] : []))
      if (tooBig.length) {
        throw new Refusal('invalid_input', `item(s) ${tooBig.slice(0, 10).join(', ')} exceed the bin capacity ${i.capacity}`, {
          issues: tooBig.slice(0, 10).map((id) => ({ path: 'items', message: `item ${id} is larger than the capacity` })),
        })
      }
    }
    const ffd = firstFitDecreasing(problem)
    const bfd = bestFitDecreasing(problem)
    const lb = lowerBound(problem)
    const candidates = ([['ffd', ffd], ['bfd', bfd]] as const).filter(([, p]) => p.unplaced.length === 0)
    const bestHeuristic = candidates.reduce<(typeof candidates)[number] | null>(
      (best, c) => (best === null || c[1].bins_used < best[1].bins_used ? c : best),
      null,
    )

    let exact: z.output<typeof output>['exact']
    let notAdmitted: Refusal | null = null
    const small = sizes.length <= EXACT_MAX_ITEMS
    if (bestHeuristic && lb.lower_bound !== null && bestHeuristic[1].bins_used === lb.lower_bound) {
      exact = {
        status: 'optimal', optimal: true, proven_by: 'lower_bound', feasible: true, nodes: 0, stopped_by: null,
        reason: `${bestHeuristic[0].toUpperCase()} meets the lower bound of ${lb.lower_bound} bins`,
        packing: render(bestHeuristic[1], ids, binIds),
      }
    } else if (i.exact === 'never' || !small) {
      exact = {
        status: 'skipped', optimal: false, proven_by: null, feasible: null, nodes: 0, stopped_by: null,
        reason: i.exact === 'never' ? 'exact search not requested' : `more than ${EXACT_MAX_ITEMS} items`, packing: null,
      }
    } else if (i.exact === 'auto' && (notAdmitted = ctx.admission.heavyRefusal('pack', ctx.principal)) !== null) {
      // Not admitted to the mill (shed, or heavy work the principal may not ask for): the heuristics answer alone.
      exact = {
        status: 'skipped', optimal: false, proven_by: null, feasible: null, nodes: 0, stopped_by: null,
        reason: `the exact search was not admitted: ${notAdmitted.message} (ask exact: "always" to be refused instead)`,
        packing: null,
      }
    } else {
      ctx.admission.admitHeavy('pack', ctx.principal)
      const payload: PackExactPayload = { ...problem, maxNodes: EXACT_MAX_NODES }
      const r = await ctx.mill.run('capacity.pack_exact', payload, { timeoutMs: budgetOf(i.timeout_ms), op: 'pack', owner: ctx.principal.owner })
      const status = r.optimal ? 'optimal' : r.feasible === false ? 'infeasible' : r.packing ? 'best_found' : 'unknown'
      exact = {
        status,
        optimal: r.optimal,
        proven_by: r.optimal ? (r.stopped_by === null && r.nodes > 0 ? 'search' : 'lower_bound') : r.feasible === false ? 'search' : null,
        feasible: r.feasible,
        nodes: r.nodes,
        stopped_by: r.stopped_by,
        reason: r.stopped_by ? `search stopped by its ${r.stopped_by === 'deadline' ? 'time budget' : 'node limit'}` : null,
        packing: r.packing ? render(r.packing, ids, binIds) : null,
      }
    }

    const best =
      exact.packing && (!bestHeuristic || exact.packing.bins_used < bestHeuristic[1].bins_used)
        ? ('exact' as const)
        : bestHeuristic?.[0] ?? null
    return {
      items: sizes.length,
      total_size: sizes.reduce((s, x) => s + x, 0),
      capacity: i.capacity ?? null,
      bins_available: i.bins?.length ?? null,
      lower_bound: {
        sum_bound: lb.sum_bound,
        l2_bound: lb.l2_bound,
        count_bound: lb.count_bound,
        lower_bound: lb.lower_bound,
      },
      ffd: render(ffd, ids, binIds),
      bfd: render(bfd, ids, binIds),
      exact,
      best,
      assumptions: [
        'items are placed whole; sizes and capacities in one unit',
        `a bin holds items whose sizes sum to at most its capacity × (1 + ${FIT_TOLERANCE}) (float tolerance)`,
        i.bins ? 'bins of the list are used at most once, in the given order for first fit' : 'identical bins, as many as needed',
      ],
    }
  },
})
