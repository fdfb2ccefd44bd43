// `ncm runs|datasets|ledger|grants|pins`: what the server stored, read back page by page (or every page with --all).
import { Command, Option } from 'commander'
import { callApi, type CallRequest, type CallResult } from './client.js'

export interface ListCommandDeps {
  /** The global options: --all follows next_cursor to the last page. */
  global(): { url: string; token?: string; all?: boolean }
  /** Runs one call (spinner included) and prints its answer as every command does. */
  send(label: string, request: CallRequest): Promise<void>
  /** Prints an answer that was not sent through `send` (the merged pages of --all, or the refusal that stopped it). */
  print(result: CallResult, label: string): void
}

const LEDGER_LISTS = ['accounts', 'positions', 'orders', 'fills', 'cycles'] as const

export interface PageOptions {
  limit?: string
  cursor?: string
}

/** --limit and --cursor; --all (every page) is a global option. */
export const pageOptions = (command: Command) => command
  .option('--limit <n>', 'items per page (1–500, default 50)')
  .option('--cursor <cursor>', 'next_cursor of the previous page (--all: every page)')

export function addListCommands(program: Command, deps: ListCommandDeps): void {
  pageOptions(program
    .command('runs [id]')
    .description('stored runs, newest first (GET /api/v11/runs); with an id, one run with its inputs, stats and equity')
    .addOption(new Option('--kind <kind>', 'only runs of this kind').choices(['backtest', 'simulate', 'max_edge', 'max_edge_v10', 'full_cycle_search']))
    .option('--dataset <ref>', 'only runs on this dataset (id, symbol or symbol@timeframe)')
    .option('--strategy <name>', 'only runs of this strategy')
    .option('--trades', 'with an id: recompute the run\'s trades from its stored inputs')
    .option('--equity-points <n>', 'with an id: downsample the stored equity curve to this many points'))
    .action(async (id: string | undefined, opts: PageOptions & { kind?: string; dataset?: string; strategy?: string; trades?: boolean; equityPoints?: string }) => {
      if (id !== undefined) {
        const query = params({ include: opts.trades ? 'trades' : undefined, equity_points: opts.equityPoints })
        return deps.send('runs', { method: 'GET', path: `/api/v11/runs/${encodeURIComponent(id)}${query}` })
      }
      return list(deps, 'runs', '/api/v11/runs', 'runs', opts, { kind: opts.kind, dataset: opts.dataset, strategy: opts.strategy })
    })

  pageOptions(program
    .command('datasets [ref]')
    .description('datasets with their metadata (GET /api/v11/datasets); with a ref, one dataset and a page of its bars')
    .option('--delete', 'delete the dataset named by ref (scope trading:write)')
    .option('--cascade', 'with --delete: also delete the runs and signals that refer to it'))
    .action(async (ref: string | undefined, opts: PageOptions & { delete?: boolean; cascade?: boolean }) => {
      if (ref === undefined) return list(deps, 'datasets', '/api/v11/datasets', 'datasets', opts, {})
      const path = `/api/v11/datasets/${encodeURIComponent(ref)}`
      if (opts.delete) return deps.send('datasets', { method: 'DELETE', path: path + params({ cascade: opts.cascade ? 'true' : undefined }), token: deps.global().token })
      return list(deps, 'datasets', path, 'bars', opts, {})
    })

  pageOptions(program
    .command('ledger <list>')
    .description(`the paper ledger: ${LEDGER_LISTS.join(', ')} (GET /api/v11/ledger/<list>)`)
    .option('--account <id>', 'only this account')
    .option('--dataset <ref>', 'only this dataset'))
    .action(async (name: string, opts: PageOptions & { account?: string; dataset?: string }) => {
      if (!(LEDGER_LISTS as readonly string[]).includes(name)) program.error(`ncm ledger: the list is one of ${LEDGER_LISTS.join(', ')}`, { exitCode: 2 })
      return list(deps, 'ledger', `/api/v11/ledger/${name}`, name, opts, { account: opts.account, dataset: opts.dataset })
    })

  pageOptions(program
    .command('grants')
    .description('grants without their tokens: subject, scopes, expiry, last use, revocation (admin:read; GET /api/v1/admin/grants)'))
    .action(async (opts: PageOptions) => list(deps, 'grants', '/api/v1/admin/grants', 'grants', opts, {}))

  pageOptions(program
    .command('pins [digest]')
    .description('pins without content (admin:read; GET /api/v1/admin/pins); with a digest, one pin read back and re-hashed'))
    .action(async (digest: string | undefined, opts: PageOptions) => {
      if (digest !== undefined) return deps.send('pins', { method: 'GET', path: `/api/v1/admin/pins/${encodeURIComponent(digest)}`, accept: 'application/json', token: deps.global().token })
      return list(deps, 'pins', '/api/v1/admin/pins', 'pins', opts, {})
    })
}

function params(values: Record<string, string | undefined>): string {
  const defined = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return defined.length ? `?${new URLSearchParams(defined)}` : ''
}

/** One page, or with --all every page from the cursor on, merged into one answer with `next_cursor: null`. */
export async function list(deps: ListCommandDeps, label: string, path: string, field: string, opts: PageOptions, filters: Record<string, string | undefined>) {
  const { url, token, all } = deps.global()
  const request = (cursor: string | undefined): CallRequest => ({
    method: 'GET', path: path + params({ ...filters, limit: opts.limit, cursor }), accept: 'application/json', token,
  })
  if (!all) return deps.send(label, request(opts.cursor))
  const items: unknown[] = []
  let cursor = opts.cursor
  let pages = 0
  for (;;) {
    const result = await callApi(url, request(cursor))
    const page = (result.envelope ? result.envelope.data : result.problem) as Record<string, unknown> | null | undefined
    if (result.status >= 400 || !page) return deps.print(result, label)
    pages++
    items.push(...(page[field] as unknown[]))
    if (typeof page.next_cursor !== 'string') {
      const merged = { ...page, [field]: items, pages, next_cursor: null }
      const text = JSON.stringify(result.envelope ? { ...result.envelope, data: merged } : merged)
      return deps.print({ ...result, text, ...(result.envelope ? { envelope: { ...result.envelope, data: merged } } : { problem: merged }) }, label)
    }
    cursor = page.next_cursor
  }
}
