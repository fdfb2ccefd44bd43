// Toolsets: the MCP tools in groups a client selects per connection (`/mcp?toolsets=caller,trading`, or the
// `mcp-toolsets` header). Grouped from registry metadata, never by a list of names: a new operation lands in its
// group by its surface, lobe and access.
import { Refusal } from '../http/refusal.js'

export const TOOLSETS = ['caller', 'trading', 'discovery', 'admin'] as const
export type Toolset = (typeof TOOLSETS)[number]

/** What a connection that names none gets: the compute tools, well under the ~40 tools some clients allow. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ['caller', 'trading']
/** Tools a client like Cursor takes before it drops some: the default selection stays within it. */
export const MAX_DEFAULT_TOOLS = 40

export const TOOLSET_DESCRIPTIONS: Record<Toolset, string> = {
  caller: 'the caller API\'s compute operations: logic, capacity, text, pins and upgrades, /run and /cli, runtime races',
  trading: 'the trading research tools (datasets, backtests, Monte Carlo, walk-forward signals; paper data only)',
  discovery: 'what the caller API is and can do: listings, help, lexicon, OpenAPI, runtime detection',
  admin: 'operations only the admin credential may call (minting grants)',
}

/** The query parameter and the header that select toolsets. */
export const TOOLSETS_PARAM = 'toolsets'
export const TOOLSETS_HEADER = 'mcp-toolsets'

/** Where a tool comes from, as its registry says. */
export interface ToolOrigin {
  surface: 'caller' | 'trading'
  lobe?: string
  adminOnly?: boolean
}

export function toolsetOf(origin: ToolOrigin): Toolset {
  if (origin.surface === 'trading') return 'trading'
  if (origin.adminOnly) return 'admin'
  if (origin.lobe === 'discovery') return 'discovery'
  return 'caller'
}

/** A selection as written (`caller,trading`, `all`, absent): its toolsets in TOOLSETS order; an unknown name is refused. */
export function parseToolsets(written: string | undefined): Toolset[] {
  if (written === undefined || written.trim() === '') return [...DEFAULT_TOOLSETS]
  if (written.length > 200) throw refuse(`${TOOLSETS_PARAM} is ${written.length} characters; the names take at most 200`)
  const names = written.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean)
  if (names.includes('all')) return [...TOOLSETS]
  const unknown = names.filter((name) => !(TOOLSETS as readonly string[]).includes(name))
  if (unknown.length) throw refuse(`unknown toolset ${unknown.map((n) => JSON.stringify(n.slice(0, 40))).join(', ')}`)
  return TOOLSETS.filter((name) => names.includes(name))
}

function refuse(reason: string): Refusal {
  return new Refusal('invalid_input', `${reason}; toolsets are ${TOOLSETS.join(', ')} or all (default ${DEFAULT_TOOLSETS.join(',')})`, {
    hints: { toolsets: TOOLSETS, default: DEFAULT_TOOLSETS },
  })
}

/** The selection a request makes: the query parameter wins over the header; both absent is the default. */
export function requestedToolsets(query: unknown, header: string | string[] | undefined): Toolset[] {
  const fromQuery = query && typeof query === 'object' ? (query as Record<string, unknown>)[TOOLSETS_PARAM] : undefined
  if (Array.isArray(fromQuery) || Array.isArray(header)) throw refuse(`give ${TOOLSETS_PARAM} once, as a comma-separated list`)
  if (fromQuery !== undefined && typeof fromQuery !== 'string') throw refuse(`${TOOLSETS_PARAM} is a comma-separated list`)
  return parseToolsets((fromQuery as string | undefined) ?? header)
}
