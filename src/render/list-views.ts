// How a list reads on a terminal: the columns people scan (id, name, state, key figure, age) by list name, short ids,
// ages, and a table cut to the terminal's width. `--columns a,b` picks columns (a view's or any field, `dataset.symbol`),
// `--wide` adds every other field; `--json` never comes here. Pure functions of (rows, options).

type Row = Record<string, unknown>

export interface ListOptions {
  /** Terminal width the table must fit (the default views fit 120). */
  width: number
  /** Now, for ages (epoch ms). */
  now: number
  /** Every field as a column, after the view's own. */
  wide?: boolean
  /** These columns, in this order: view column names or field paths. */
  columns?: readonly string[]
}

export interface Column {
  name: string
  get(row: Row, context: ViewContext): unknown
}

/** What a column may need beyond its row: the short form of each id in the list. */
export interface ViewContext {
  now: number
  shortId(id: string): string
}

const isRecord = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value)

/** The value at a dotted path (`dataset.symbol`), or undefined. */
export function pathValue(row: Row, path: string): unknown {
  let value: unknown = row
  for (const key of path.split('.')) value = isRecord(value) ? value[key] : undefined
  return value
}

/** Every scalar (or scalar list) field of a row by dotted path, nested records flattened. */
export function fieldPaths(row: Row, prefix = ''): string[] {
  return Object.entries(row).flatMap(([key, value]) =>
    isRecord(value) && Object.keys(value).length > 0 ? fieldPaths(value, `${prefix}${key}.`) : [`${prefix}${key}`])
}

/** How long ago an ISO time was, in the largest whole unit: 45s, 12m, 3h, 5d. */
export function age(iso: unknown, now: number): string | null {
  const at = typeof iso === 'string' ? Date.parse(iso) : NaN
  if (Number.isNaN(at)) return null
  const s = Math.max(0, Math.round((now - at) / 1000))
  if (s < 90) return `${s}s`
  if (s < 90 * 60) return `${Math.round(s / 60)}m`
  if (s < 36 * 3600) return `${Math.round(s / 3600)}h`
  return `${Math.round(s / 86400)}d`
}

/** A duration in seconds as 0.4s, 12s, 3m05s, 2h10m. */
export function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/** Shortest prefix of each id, at least `min` characters, that no other id of the list shares (as git abbreviates). */
export function shortIds(ids: readonly string[], min = 8): Map<string, string> {
  const short = new Map<string, string>()
  const unique = [...new Set(ids)]
  for (const id of unique) {
    let length = Math.min(min, id.length)
    while (length < id.length && unique.some((other) => other !== id && other.startsWith(id.slice(0, length)))) length++
    short.set(id, id.slice(0, length))
  }
  return short
}

const compact = (record: unknown): string => isRecord(record)
  ? Object.entries(record).map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(4)) : v}`).join(' ')
  : ''
const date = (iso: unknown) => (typeof iso === 'string' ? iso.slice(0, 10) : null)
const column = (name: string, get: Column['get']): Column => ({ name, get })
const field = (name: string, path = name): Column => column(name, (row) => pathValue(row, path))
const created = column('age', (row, c) => age(row.created_at, c.now))
const id = column('id', (row, c) => (typeof row.id === 'string' ? c.shortId(row.id) : row.id))

/** What a job has done: its fraction and counts where the work knows a total, else its phase. */
function jobProgress(row: Row): string | null {
  const p = isRecord(row.progress) ? row.progress : null
  if (!p) return null
  const parts: string[] = []
  if (typeof p.fraction === 'number') parts.push(`${Math.round(p.fraction * 100)}%`)
  if (typeof p.done === 'number') parts.push(typeof p.total === 'number' ? `${p.done}/${p.total}` : String(p.done))
  if (typeof p.phase === 'string' && p.phase) parts.push(p.phase)
  return parts.join(' ') || null
}

function jobTook(row: Row, now: number): string | null {
  const started = typeof row.started_at === 'string' ? Date.parse(row.started_at) : NaN
  if (Number.isNaN(started)) return null
  const finished = typeof row.finished_at === 'string' ? Date.parse(row.finished_at) : now
  return duration(finished - started)
}

/** The first figures of a run's headline, named shortly: return 12.3 · sharpe 0.91. */
function headline(row: Row): string | null {
  if (!isRecord(row.headline)) return null
  const figures = Object.entries(row.headline).filter(([, v]) => typeof v === 'number').slice(0, 3)
  return figures.map(([k, v]) => `${k.replace(/_pct$/, '%').replace(/_ratio$/, '')} ${Number((v as number).toPrecision(4))}`).join(' · ') || null
}

/** The default columns of each list the host answers, by the list's field name. */
export const LIST_VIEWS: Readonly<Record<string, readonly Column[]>> = {
  jobs: [id, field('op'), field('state'), column('progress', jobProgress), column('took', (row, c) => jobTook(row, c.now)), created],
  runs: [
    id, field('kind'),
    column('dataset', (row) => (isRecord(row.dataset) ? `${row.dataset.symbol}@${row.dataset.timeframe}` : null)),
    field('strategy'), column('params', (row) => compact(row.params) || null), column('figures', headline), created,
  ],
  datasets: [
    id, field('symbol'), field('timeframe'), field('rows'),
    column('from', (row) => date(row.first_ts)), column('to', (row) => date(row.last_ts)), field('source'), created,
  ],
  grants: [id, field('subject'), column('scopes', (row) => (Array.isArray(row.scopes) ? row.scopes.join(',') : null)),
    column('expires', (row) => date(row.expires_at)), column('revoked', (row) => date(row.revoked_at)), created],
}

export interface ListTable {
  header: string[]
  rows: unknown[][]
}

/** The columns and cell values of a list: the view's (or the first fields of the rows), `--columns`, `--wide`. */
export function listTable(name: string, rows: readonly Row[], options: ListOptions): ListTable {
  const ids = rows.map((row) => row.id).filter((v): v is string => typeof v === 'string')
  const shorts = shortIds(ids)
  const context: ViewContext = { now: options.now, shortId: (value) => shorts.get(value) ?? value }
  const view = LIST_VIEWS[name] ?? []
  const paths = [...new Set(rows.flatMap((row) => fieldPaths(row)))]
  const byName = (wanted: string): Column => view.find((c) => c.name === wanted) ?? field(wanted)
  let columns: Column[]
  if (options.columns && options.columns.length > 0) columns = options.columns.map(byName)
  else if (options.wide) columns = [...view, ...paths.filter((p) => !view.some((c) => c.name === p)).map((p) => field(p))]
  else columns = view.length > 0 ? [...view] : paths.map((p) => field(p))
  return { header: columns.map((c) => c.name), rows: rows.map((row) => columns.map((c) => c.get(row, context))) }
}
