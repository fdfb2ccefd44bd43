#!/usr/bin/env node
// The `ncm` binary: the caller API from a terminal. Commands and their help are generated from the registry.
import { readFileSync } from 'node:fs'
import { Command, Option } from 'commander'
import { registry } from '../caller/registry.js'
import { fullPath, inputJsonSchema } from '../caller/projections.js'
import type { AnyOperation } from '../caller/operation.js'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { parseArgv } from '../caller/grammar.js'
import { callApi, type CallResult } from './client.js'
import { addListCommands } from './lists.js'
import { addJobCommands, followJob, jobOf } from './jobs.js'
import type { CallRequest } from './client.js'
import { isRefusal } from '../refusal.js'

export const EXIT = { ok: 0, error: 1, refused: 2 } as const

interface GlobalOptions {
  url: string
  json?: boolean
  token?: string
  async?: boolean
}

const program = new Command('ncm')
  .description(`NCM Hub caller API from the command line (contract ${NCM_VERSION}, hub ${HUB_VERSION}).\nEvery operation of the server is a command; flags are the fields of its input.`)
  .version(HUB_VERSION)
  .addOption(new Option('--url <url>', 'server base URL').env('NCM_URL').default('http://127.0.0.1:8000'))
  .addOption(new Option('--token <token>', 'bearer credential (admin token or grant)').env('NCM_TOKEN'))
  .option('--json', 'print the raw envelope instead of readable output')
  .option('--async', 'run heavy operations as jobs: progress on stderr, Ctrl-C cancels, the answer printed at the end')
  .showHelpAfterError()

program
  .command('ops')
  .description('list the operations (from this binary\'s registry)')
  .action(() => {
    const width = Math.max(...registry.operations.map((op) => op.name.length))
    for (const op of registry.operations) process.stdout.write(`${op.name.padEnd(width)}  ${op.method.padEnd(4)} ${fullPath(op).padEnd(26)} ${op.caption}\n`)
  })

program
  .command('import <file>')
  .description('import an OHLCV CSV file (Date,Open,High,Low,Close,Volume) as a trading dataset')
  .requiredOption('--symbol <symbol>', 'symbol to file the dataset under, e.g. GOOG')
  .option('--timeframe <timeframe>', 'bar timeframe, e.g. 1d or 1h', '1d')
  .action(async (file: string, opts: { symbol: string; timeframe: string }) => {
    const global = program.opts<GlobalOptions>()
    const csv = readFileSync(file, 'utf8')
    const query = new URLSearchParams({ symbol: opts.symbol, timeframe: opts.timeframe })
    const result = await withSpinner(`import ${file}`, () =>
      callApi(global.url, { method: 'POST', path: `/api/v11/datasets?${query}`, body: csv, contentType: 'text/csv', token: global.token }))
    finish(result, global, 'import')
  })

// What the list and job commands share: one call with a spinner, printed as every command prints.
const commandDeps = {
  global: () => program.opts<GlobalOptions>(),
  send: async (label: string, request: CallRequest) => {
    const global = program.opts<GlobalOptions>()
    finish(await withSpinner(label, () => callApi(global.url, { token: global.token, ...request })), global, label)
  },
  print: (result: CallResult, label: string) => finish(result, program.opts<GlobalOptions>(), label),
}
addListCommands(program, commandDeps)
addJobCommands(program, commandDeps)

// Trading research: long searches, so they run as jobs unless --sync is given.
const RESEARCH = [
  { name: 'backtest', path: '/api/v11/trading/backtest', caption: 'backtest a strategy on a dataset' },
  { name: 'simulate', path: '/api/v11/trading/simulate', caption: 'Monte Carlo of a strategy (bootstrap or GBM paths)' },
  { name: 'max-edge-signal', path: '/api/v11/trading/max-edge-signal', caption: 'walk-forward search over strategies × grids, scored out of sample' },
] as const
for (const research of RESEARCH) {
  program
    .command(`${research.name} <body>`)
    .description(`${research.caption} (POST ${research.path}); <body> is the JSON request or @file; runs as a job with a progress bar`)
    .option('--sync', 'wait in the request instead of running as a job')
    .action(async (body: string, opts: { sync?: boolean }) => {
      const global = program.opts<GlobalOptions>()
      const text = body.startsWith('@') ? readFileSync(body.slice(1), 'utf8') : body
      await callMaybeAsync(research.name, { method: 'POST', path: research.path, body: text, contentType: 'application/json' }, !opts.sync)
    })
}

/** Sends a heavy call; as a job (followed with progress) when asked, else waiting in the request with a spinner. */
async function callMaybeAsync(label: string, request: CallRequest, asJob: boolean): Promise<void> {
  const global = program.opts<GlobalOptions>()
  if (!asJob) return finish(await withSpinner(label, () => callApi(global.url, { token: global.token, ...request })), global, label)
  const submitted = await callApi(global.url, { token: global.token, prefer: 'respond-async', ...request })
  const job = jobOf(submitted)
  finish(job ? await followJob(job, { baseUrl: global.url, token: global.token }) : submitted, global, label)
}

// `ops` and `help` are local commands here (`ncm help sat` shows the generated help of sat).
const LOCAL_COMMANDS = new Set(['ops', 'help'])

for (const op of registry.operations.filter((o) => !LOCAL_COMMANDS.has(o.name))) {
  program
    .command(op.name.replaceAll('_', '-'))
    .description(op.caption)
    .argument('[args...]', 'flags: --field value (see below)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help', 'show the fields of this operation')
    .addHelpText('after', '\n' + operationHelp(op))
    .action(async (_args: string[], _opts: unknown, command: Command) => {
      const global = program.opts<GlobalOptions>()
      const parsed = parseArgv([op.name, ...command.args], registry, { readFile: (path) => readFileSync(path, 'utf8') })
      const query = op.method === 'GET' ? new URLSearchParams(parsed.input as Record<string, string>).toString() : ''
      await callMaybeAsync(op.name, {
        method: op.method,
        path: fullPath(op) + (query ? `?${query}` : ''),
        body: op.method === 'POST' ? JSON.stringify(parsed.input) : undefined,
        contentType: 'application/json',
        accept: 'application/json',
      }, op.heavy && Boolean(global.async))
    })
}

function operationHelp(op: AnyOperation): string {
  const schema = inputJsonSchema(op) as { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] }
  const lines = [`${op.method} ${fullPath(op)} — ${op.caption}`, '', op.summary, '']
  const properties = Object.entries(schema.properties ?? {})
  if (properties.length > 0) {
    lines.push('Fields:')
    for (const [name, node] of properties) {
      const type = Array.isArray(node.type) ? node.type.join('|') : String(node.type ?? 'json')
      const required = schema.required?.includes(name) ? ' (required)' : ''
      lines.push(`  --${name.replaceAll('_', '-')} <${type}>${required}${node.description ? `  ${node.description}` : ''}`)
    }
    lines.push('')
  }
  lines.push(`Example:\n  ncm ${op.name.replaceAll('_', '-')} --json '${JSON.stringify(op.examples[0] ?? {})}'`)
  return lines.join('\n')
}

/** Shows a spinner with elapsed time on a terminal while a call is in flight. */
async function withSpinner<T>(label: string, call: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return call()
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'
  const start = performance.now()
  let i = 0
  const timer = setInterval(() => {
    const seconds = ((performance.now() - start) / 1000).toFixed(1)
    process.stderr.write(`\r${frames[i++ % frames.length]} ${label} ${seconds}s`)
  }, 100)
  try {
    return await call()
  } finally {
    clearInterval(timer)
    process.stderr.write('\r\x1b[K')
  }
}

function finish(result: CallResult, global: GlobalOptions, label: string): void {
  if (global.json) {
    process.stdout.write(result.text + (result.text.endsWith('\n') ? '' : '\n'))
  } else if (result.envelope) {
    const env = result.envelope
    if (env.ok) process.stdout.write(JSON.stringify(env.data, null, 2) + '\n')
    else printRefusal(env.refuse as Record<string, unknown>, label)
  } else if (result.problem) {
    if (result.status < 400) process.stdout.write(JSON.stringify(result.problem, null, 2) + '\n')
    else process.stderr.write(`ncm ${label}: ${result.status} ${String(result.problem.title ?? '')}: ${String(result.problem.detail ?? '')}\n`)
  } else {
    process.stdout.write(result.text + '\n')
  }
  process.exitCode = result.status < 400 ? EXIT.ok : EXIT.refused
}

function printRefusal(refuse: Record<string, unknown>, label: string) {
  process.stderr.write(`ncm ${label}: refused ${String(refuse.code)} (${String(refuse.http_status)}): ${String(refuse.reason)}\n`)
  for (const issue of (refuse.issues as Array<{ path: string; message: string }> | undefined) ?? []) {
    process.stderr.write(`  ${issue.path}: ${issue.message}\n`)
  }
  const closest = (refuse.hints as { closest?: string[] } | undefined)?.closest
  if (closest) process.stderr.write(`  did you mean: ${closest.join(', ')}\n`)
  if (refuse.retry_after_s !== undefined) process.stderr.write(`  retry after ${String(refuse.retry_after_s)} s\n`)
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (isRefusal(err)) {
    printRefusal(err.toBody() as unknown as Record<string, unknown>, 'ncm')
    process.exitCode = EXIT.refused
    return
  }
  process.stderr.write(`ncm: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = EXIT.error
})
