// Jobs from the terminal: follow a submitted job's event stream with a progress bar (stderr is a TTY) or plain
// progress lines (it is not), cancel it on Ctrl-C, then fetch its answer; and `ncm jobs`, `ncm job <id>`, `ncm cancel <id>`.
import cliProgress from 'cli-progress'
import type { Command } from 'commander'
import { request } from 'undici'
import { callApi, type CallRequest, type CallResult } from './client.js'
import { list, pageOptions, type PageOptions } from './lists.js'

interface JobProgressView {
  fraction: number | null
  phase: string
  done: number | null
  total: number | null
  eta_s: number | null
  counters: Record<string, number>
}

interface JobViewLike {
  id: string
  op: string
  state: string
  progress: JobProgressView
  url: string
  events_url: string
  result_url: string | null
  refuse: Record<string, unknown> | null
}

/** Exit status after Ctrl-C (128 + SIGINT), as shells report an interrupted command. */
export const EXIT_INTERRUPTED = 130

export interface FollowOptions {
  baseUrl: string
  token?: string | undefined
  /** Where progress goes; a TTY gets the bar. */
  stream?: NodeJS.WriteStream
}

/** The job resource of a 202 answer (enveloped under /api/v1, plain under /api/v11). */
export function jobOf(result: CallResult): JobViewLike | null {
  if (result.status !== 202) return null
  const body = result.envelope ? result.envelope.data : result.problem
  return body && typeof body === 'object' && 'events_url' in body ? (body as JobViewLike) : null
}

/** One line of progress: what is known, nothing invented (no percentage without a total). */
export function progressLine(job: JobViewLike): string {
  const p = job.progress
  const parts = [`job ${job.id.slice(0, 8)} ${job.op} ${job.state}`, p.phase]
  if (p.fraction !== null) parts.push(`${(p.fraction * 100).toFixed(1)}%`)
  if (p.done !== null) parts.push(p.total !== null ? `${p.done}/${p.total}` : `${p.done}`)
  // configs_done/configs_total repeat done/total; folds and SAT counters add to them.
  const counters = Object.entries(p.counters).filter(([k]) => !k.startsWith('configs_')).map(([k, v]) => `${k}=${v}`).join(' ')
  if (counters) parts.push(counters)
  if (p.eta_s !== null) parts.push(`eta ${p.eta_s}s`)
  return parts.join(' · ')
}

/**
 * Follows a job to its final event, then answers as the synchronous call would have (the result or the refusal), or
 * null when Ctrl-C cancelled it (already reported on the stream).
 */
export async function followJob(job: JobViewLike, opts: FollowOptions): Promise<CallResult | null> {
  const stream = opts.stream ?? process.stderr
  const auth: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {}
  const display = stream.isTTY ? barDisplay(stream) : lineDisplay(stream)
  let cancelling = false
  const onSigint = () => {
    if (cancelling) process.exit(EXIT_INTERRUPTED)
    cancelling = true
    // The bar is stopped first (and the cursor shown again): it would redraw over the message.
    display.stop()
    stream.write(`ncm: cancelling job ${job.id} (Ctrl-C again to quit at once)\n`)
    void callApi(opts.baseUrl, { method: 'DELETE', path: job.url, token: opts.token }).catch(() => {})
  }
  process.on('SIGINT', onSigint)
  let final: { state: string; job: JobViewLike; refuse?: unknown } | null = null
  try {
    display.update(job)
    const res = await request(new URL(job.events_url, opts.baseUrl), { headers: { accept: 'text/event-stream', ...auth }, bodyTimeout: 0 })
    let buffer = ''
    for await (const chunk of res.body) {
      buffer += chunk.toString('utf8')
      let cut: number
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const event = /^event: (.+)$/m.exec(block)?.[1]
        const data = /^data: (.+)$/m.exec(block)?.[1]
        if (!event || !data) continue
        const parsed = JSON.parse(data) as { job: JobViewLike; refuse?: unknown }
        if (!cancelling) display.update(parsed.job)
        if (event !== 'progress') final = { state: event, ...parsed }
      }
    }
  } finally {
    display.stop()
    process.off('SIGINT', onSigint)
  }
  // The stream ended without a final event (the server went away): read the job once more.
  const last = final?.job ?? (await readJob(opts, job.url))
  if (cancelling && last?.state === 'cancelled') {
    stream.write(`ncm: job ${job.id} cancelled\n`)
    return null
  }
  if (last?.state === 'succeeded' && last.result_url) return callApi(opts.baseUrl, { method: 'GET', path: last.result_url, accept: 'application/json', token: opts.token })
  return callApi(opts.baseUrl, { method: 'GET', path: `${job.url}/result`, accept: 'application/json', token: opts.token })
}

async function readJob(opts: FollowOptions, path: string): Promise<JobViewLike | null> {
  const result = await callApi(opts.baseUrl, { method: 'GET', path, token: opts.token })
  return (result.envelope?.data ?? result.problem ?? null) as JobViewLike | null
}

interface Display {
  update(job: JobViewLike): void
  stop(): void
}

/** cli-progress on a terminal: a bar where the total is known, counters and phase either way. */
function barDisplay(stream: NodeJS.WriteStream): Display {
  const bar = new cliProgress.SingleBar({
    stream,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 30,
    format: (options, params, payload: { line: string; known: boolean }) => {
      const body = payload.known ? cliProgress.Format.BarFormat(params.progress, options) : '·'.repeat(30)
      return `${body} ${payload.line}`
    },
  }, cliProgress.Presets.shades_classic)
  let started = false
  return {
    update(job) {
      const p = job.progress
      const payload = { line: progressLine(job), known: p.fraction !== null }
      const value = Math.round((p.fraction ?? 0) * 1000)
      if (!started) {
        bar.start(1000, value, payload)
        started = true
      } else {
        bar.update(value, payload)
      }
    },
    stop() {
      if (started) bar.stop()
      started = false
    },
  }
}

/** Not a terminal: a plain line when the job's state or numbers change, at most one a second. */
function lineDisplay(stream: NodeJS.WriteStream): Display {
  let lastLine = ''
  let lastAt = 0
  let lastState = ''
  return {
    update(job) {
      const line = progressLine(job)
      const now = Date.now()
      if (line === lastLine || (job.state === lastState && now - lastAt < 1000)) return
      stream.write(line + '\n')
      lastLine = line
      lastAt = now
      lastState = job.state
    },
    stop() {},
  }
}

export interface JobCommandDeps {
  global(): { url: string; token?: string; all?: boolean }
  send(label: string, request: CallRequest): Promise<void>
  print(result: CallResult, label: string): void
}

/** `ncm jobs`, `ncm job <id>`, `ncm cancel <id>`. */
export function addJobCommands(program: Command, deps: JobCommandDeps): void {
  pageOptions(program
    .command('jobs')
    .description('jobs, newest first (GET /api/v1/jobs): id, op, state, progress, run time, age')
    .option('--state <state>', 'queued, running, succeeded, failed or cancelled')
    .option('--op <op>', 'only jobs of this operation (e.g. sat, trading.max-edge-signal)'))
    .action(async (opts: PageOptions & { state?: string; op?: string }) => list(deps, 'jobs', '/api/v1/jobs', 'jobs', opts, { state: opts.state, op: opts.op }))
  program
    .command('job <id>')
    .description('one job by id or a unique prefix of 4+ characters (GET /api/v1/jobs/{id}); --result prints its answer, --follow watches it')
    .option('--result', 'print the answer of a finished job')
    .option('--follow', 'follow the job to its end with a progress bar, then print its answer')
    .action(async (id: string, opts: { result?: boolean; follow?: boolean }) => {
      const path = `/api/v1/jobs/${encodeURIComponent(id)}`
      if (opts.follow) {
        const { url, token } = deps.global()
        const job = await readJob({ baseUrl: url, token }, path)
        if (job && 'events_url' in job) return printFollowed(await followJob(job, { baseUrl: url, token }), deps, 'job')
      }
      await deps.send('job', { method: 'GET', path: opts.result ? `${path}/result` : path })
    })
  program
    .command('cancel <id>')
    .description('cancel a job (id or unique prefix): queued work stops at once, running work within 200 ms (DELETE /api/v1/jobs/{id})')
    .action(async (id: string) => deps.send('cancel', { method: 'DELETE', path: `/api/v1/jobs/${encodeURIComponent(id)}` }))
}

/** Prints a followed job's answer; a job the user cancelled with Ctrl-C exits 130 (already reported). */
export function printFollowed(answer: CallResult | null, deps: Pick<JobCommandDeps, 'print'>, label: string): void {
  if (answer) deps.print(answer, label)
  else process.exitCode = EXIT_INTERRUPTED
}
