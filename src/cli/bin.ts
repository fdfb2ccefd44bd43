#!/usr/bin/env node
// The `ncm` binary: the caller API from a terminal. Commands and their help are generated from the registry.
import { readFileSync, writeFileSync } from 'node:fs'
import { Command, Option } from 'commander'
import { registry } from '../caller/registry.js'
import { fullPath, inputJsonSchema } from '../caller/projections.js'
import type { AnyOperation } from '../caller/operation.js'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { parseArgv } from '../caller/grammar.js'
import { callApi, type CallResult } from './client.js'
import { addListCommands } from './lists.js'
import { addJobCommands, followJob, jobOf, printFollowed } from './jobs.js'
import type { CallRequest } from './client.js'
import { isRefusal } from '../http/refusal.js'
import type { Registry } from '../caller/operation.js'
import { LOBES } from '../caller/operation.js'
import { byLobe } from '../caller/projections.js'
import { PLAIN, renderData, renderProblem, renderRefusal, renderTable, styleFor, type RefusalView, type RenderOptions } from '../render/render.js'
import { completionCommands, completionScript, SHELLS, type GlobalFlags, type Shell } from './completion.js'
import { TRADING_COMMANDS, tradingCommandRegistry } from './trading-commands.js'

export const EXIT = { ok: 0, error: 1, refused: 2 } as const

interface GlobalOptions {
  url: string
  json?: boolean
  human?: boolean
  token?: string
  async?: boolean
  sync?: boolean
  all?: boolean
  wide?: boolean
  columns?: string
}

/** Readable output on a terminal (or with --human); --json always prints the raw answer. */
const humanOutput = (global: GlobalOptions) => !global.json && (global.human === true || process.stdout.isTTY === true)
const stdoutStyle = () => styleFor(process.stdout, process.env)
const stderrStyle = () => styleFor(process.stderr, process.env)

const program = new Command('ncm')
  .description(`NCM Hub caller API from the command line (contract ${NCM_VERSION}, hub ${HUB_VERSION}).\nEvery operation of the server is a command; flags are the fields of its input.`)
  .version(HUB_VERSION)
  .addOption(new Option('--url <url>', 'server base URL').env('NCM_URL').default('http://127.0.0.1:8000'))
  .addOption(new Option('--token <token>', 'bearer credential (admin token or grant)').env('NCM_TOKEN'))
  .option('--json', 'print the raw envelope instead of readable output')
  .option('--human', 'readable tables and blocks even when stdout is not a terminal')
  .option('--async', 'run heavy operations as jobs: progress on stderr, Ctrl-C cancels, the answer printed at the end')
  .option('--sync', 'wait in the request even for the trading research commands (they run as jobs by default)')
  .option('--all', 'every page of a list, every row of a long answer (summarised otherwise)')
  .option('--wide', 'lists: every field as a column, after the usual ones')
  .option('--columns <names>', 'lists: these columns, comma-separated (a field or a dotted path, e.g. id,state,progress.phase)')
  .helpCommand(false)
  .showHelpAfterError()

program
  .command('ops')
  .description('list the operations (from this binary\'s registry)')
  .action(() => {
    const rows = registry.operations.map((op) => ({ name: op.name, method: op.method, path: fullPath(op), lobe: op.lobe, caption: op.caption }))
    process.stdout.write(renderTable(rows, humanOutput(program.opts<GlobalOptions>()) ? stdoutStyle() : PLAIN) + '\n')
  })

program
  .command('help [command]')
  .description('list the commands by lobe, or show the help of one')
  .action((name: string | undefined) => {
    if (!name) {
      process.stdout.write(helpByLobe(humanOutput(program.opts<GlobalOptions>()) ? stdoutStyle() : PLAIN))
      return
    }
    const command = program.commands.find((c) => c.name() === name || c.name() === name.replaceAll('_', '-'))
    if (!command) throw new Error(`no command ${name}: \`ncm help\` lists them`)
    command.outputHelp()
  })

program
  .command('completion <shell>')
  .description(`print a completion script (${SHELLS.join(' or ')}) for ncm and npx ncm: source <(npx ncm completion bash)`)
  .action((shell: string) => {
    if (!(SHELLS as readonly string[]).includes(shell)) throw new Error(`completion for ${shell} is not generated; choose ${SHELLS.join(' or ')}`)
    process.stdout.write(completionScript(shell as Shell, completionCommands(registry, localCommands()), globalFlags()))
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

/** Sends a heavy call; as a job (followed with progress) when asked, else waiting in the request with a spinner. Answers the final result. */
async function callMaybeAsync(label: string, request: CallRequest, asJob: boolean): Promise<CallResult | null> {
  const global = program.opts<GlobalOptions>()
  if (!asJob) {
    const result = await withSpinner(label, () => callApi(global.url, { token: global.token, ...request }))
    finish(result, global, label)
    return result
  }
  const submitted = await callApi(global.url, { token: global.token, prefer: 'respond-async', ...request })
  const job = jobOf(submitted)
  if (!job) {
    finish(submitted, global, label)
    return submitted
  }
  const answer = await followJob(job, { baseUrl: global.url, token: global.token })
  printFollowed(answer, commandDeps, label)
  return answer
}

// `ops` and `help` are local commands here (`ncm help sat` shows the generated help of sat).
const LOCAL_COMMANDS = new Set(['ops', 'help'])

/** How a command's input becomes a request: its method, and its path with the members left for a query or body. */
interface CommandRoute {
  method: 'GET' | 'POST' | 'DELETE'
  request(input: Record<string, unknown>): { path: string; rest: Record<string, unknown> }
}

/** A server command: flags parsed by the registry's grammar, sent to its route, the answer rendered. */
function remoteCommand(op: AnyOperation, parsing: Registry, route: CommandRoute) {
  program
    .command(op.name.replaceAll('_', '-'))
    .description(op.caption)
    .argument('[args...]', 'flags: --field value (see below)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help', 'show the fields of this operation')
    .addHelpText('after', '\n' + operationHelp(op, route.method, route.request({}).path))
    .action(async (_args: string[], _opts: unknown, command: Command) => {
      const global = program.opts<GlobalOptions>()
      const { args, files } = takeDownloads(op, command.args)
      const parsed = parseArgv([op.name, ...args], parsing, { readFile: (file) => readFileSync(file, 'utf8') })
      const { path, rest } = route.request(parsed.input as Record<string, unknown>)
      const query = route.method === 'POST' ? '' : new URLSearchParams(rest as Record<string, string>).toString()
      // Trading research runs as a job by default (minutes-long searches); caller heavy ops with --async.
      const research = path.startsWith('/api/v11/trading/')
      const answer = await callMaybeAsync(op.name, {
        method: route.method,
        path: path + (query ? `?${query}` : ''),
        body: route.method === 'POST' ? JSON.stringify(rest) : undefined,
        contentType: 'application/json',
        accept: 'application/json',
      }, research ? !global.sync : op.heavy && Boolean(global.async))
      await writeDownloads(files, answer, global)
    })
}

type Download = NonNullable<AnyOperation['downloads']>[string]

/** Takes the operation's download flags (`--proof-out file`) out of the arguments the grammar parses. */
function takeDownloads(op: AnyOperation, args: readonly string[]): { args: string[]; files: Array<{ flag: string; spec: Download; path: string }> } {
  const specs = op.downloads ?? {}
  const rest: string[] = []
  const files: Array<{ flag: string; spec: Download; path: string }> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') ? (eq > 0 ? arg.slice(2, eq) : arg.slice(2)).replaceAll('-', '_') : ''
    const spec = specs[name]
    if (!spec) {
      rest.push(arg)
      continue
    }
    const path = eq > 0 ? arg.slice(eq + 1) : args[++i]
    if (!path) throw new Error(`--${name.replaceAll('_', '-')} needs a file name`)
    files.push({ flag: name, spec, path })
  }
  return { args: rest, files }
}

/** Fetches each named file from the url the answer gives and writes it; says on stderr what was written or why not. */
async function writeDownloads(files: Array<{ flag: string; spec: Download; path: string }>, answer: CallResult | null, global: GlobalOptions) {
  if (files.length === 0 || !answer?.envelope?.ok) return
  for (const { flag, spec, path } of files) {
    const url = spec.url(answer.envelope.data as never)
    const option = `--${flag.replaceAll('_', '-')}`
    if (url === null) {
      process.stderr.write(`ncm: ${option}: this answer has nothing to write (${spec.caption})\n`)
      process.exitCode = EXIT.error
      continue
    }
    const fetched = await callApi(global.url, { method: 'GET', path: url, accept: 'text/plain', token: global.token })
    if (fetched.status !== 200) {
      process.stderr.write(`ncm: ${option}: GET ${url} answered ${fetched.status}\n`)
      process.exitCode = EXIT.error
      continue
    }
    writeFileSync(path, fetched.text)
    process.stderr.write(`ncm: wrote ${Buffer.byteLength(fetched.text)} bytes to ${path} (${option})\n`)
  }
}

for (const op of registry.operations.filter((o) => !LOCAL_COMMANDS.has(o.name))) {
  remoteCommand(op, registry, { method: op.method, request: (input) => ({ path: fullPath(op), rest: input }) })
}
for (const command of TRADING_COMMANDS) remoteCommand(command.op, tradingCommandRegistry, command)

const operationCommandNames = new Set(registry.operations.map((op) => op.name.replaceAll('_', '-')))
const tradingCommandNames = new Set(TRADING_COMMANDS.map((c) => c.op.name))
/** Commands of this binary itself (ops, import, help, completion, and any added later), in registration order. */
const ownCommands = () => program.commands.filter((c) => !tradingCommandNames.has(c.name()) && (!operationCommandNames.has(c.name()) || LOCAL_COMMANDS.has(c.name())))

/** The binary's own commands and the trading commands, for completion (the operations come from the registry). */
function localCommands() {
  const own = ownCommands().map((command) => ({
    name: command.name(), caption: command.description(), flags: command.options.map((o) => o.long).filter((f): f is string => Boolean(f)),
  }))
  return [...own, ...TRADING_COMMANDS.map((c) => ({
    name: c.op.name,
    caption: c.op.caption,
    flags: Object.keys((inputJsonSchema(c.op) as { properties?: object }).properties ?? {}).map((f) => `--${f.replaceAll('_', '-')}`),
  }))]
}

/** The program's own options (every one, as commander knows them) with --help and --version. */
function globalFlags(): GlobalFlags {
  const options = program.options.filter((o) => o.long)
  return {
    all: [...options.map((o) => o.long!), '--help'],
    withValue: options.filter((o) => o.required || o.optional).map((o) => o.long!),
  }
}

/** Environment variables the binary reads, beside the ones options name (commander's .env()). */
const ENVIRONMENT: ReadonlyArray<readonly [name: string, meaning: string]> = [
  ['NO_COLOR', 'any value turns colour off (colour is only ever on a terminal)'],
  ['COLUMNS', 'width lists are fitted to when stdout is not a terminal (default 120)'],
]

/** The global flags and the environment, generated from the program's options so none is left out. */
function globalHelp(style = PLAIN): string[] {
  const options = program.options.filter((o) => o.long)
  const width = Math.max(...options.map((o) => o.flags.length))
  const out = [style.bold('global flags') + ' (before or after the command)']
  for (const o of options) {
    const extra = [o.envVar ? `env ${o.envVar}` : '', o.defaultValue !== undefined ? `default ${String(o.defaultValue)}` : ''].filter(Boolean).join('; ')
    out.push(`  ${style.cyan(o.flags.padEnd(width))}  ${o.description}${extra ? ` (${extra})` : ''}`)
  }
  out.push('', style.bold('environment'))
  const vars: Array<readonly [string, string]> = [
    ...options.filter((o) => o.envVar).map((o) => [o.envVar!, `${o.long} ${o.description}`] as const),
    ...ENVIRONMENT,
  ]
  const varWidth = Math.max(...vars.map(([name]) => name.length))
  for (const [name, meaning] of vars) out.push(`  ${style.cyan(name.padEnd(varWidth))}  ${meaning}`)
  return out
}

/** `ncm help`: the commands grouped by lobe, then the trading and local commands. */
function helpByLobe(style = PLAIN): string {
  const groups = byLobe(registry.operations)
  const out = [`${style.bold('ncm')} — NCM Hub from the command line (contract ${NCM_VERSION}, hub ${HUB_VERSION})`, '',
    `Usage: ncm [global flags] <command> [--field value …]    (npx ncm … in the repository)`, '']
  const width = Math.max(...program.commands.map((c) => c.name().length))
  const line = (name: string, caption: string) => `  ${style.cyan(name.padEnd(width))}  ${caption}`
  for (const lobe of LOBES) {
    if (groups[lobe].length === 0) continue
    out.push(style.bold(lobe))
    for (const op of groups[lobe].filter((o) => !LOCAL_COMMANDS.has(o.name))) out.push(line(op.name.replaceAll('_', '-'), op.caption))
    out.push('')
  }
  out.push(style.bold('trading'))
  for (const c of TRADING_COMMANDS) out.push(line(c.op.name, c.op.caption))
  out.push('', style.bold('this binary'))
  for (const command of ownCommands()) out.push(line(command.name(), command.description()))
  out.push('', ...globalHelp(style))
  out.push('', `\`ncm help <command>\` shows a command's fields. Exit codes: 0 ok, 1 error (no server), 2 refused, 130 interrupted.`, '')
  return out.join('\n')
}
program.helpInformation = () => helpByLobe(stdoutStyle())

function operationHelp(op: AnyOperation, method: string, path: string): string {
  const schema = inputJsonSchema(op) as { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] }
  const lines = [`${method} ${path} — ${op.caption}`, '', op.summary, '']
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
  const downloads = Object.entries(op.downloads ?? {})
  if (downloads.length > 0) {
    lines.push('Files (this binary only):')
    for (const [name, spec] of downloads) lines.push(`  --${name.replaceAll('_', '-')} <file>  ${spec.caption}`)
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

/** How the terminal shows answers: its width (120 when it is not a terminal), the list and summary flags. */
function renderOptions(global: GlobalOptions): RenderOptions {
  return {
    width: process.stdout.columns || Number(process.env.COLUMNS) || 120,
    now: Date.now(),
    all: Boolean(global.all),
    wide: Boolean(global.wide),
    ...(global.columns ? { columns: global.columns.split(',').map((c) => c.trim()).filter(Boolean) } : {}),
  }
}

function finish(result: CallResult, global: GlobalOptions, label: string): void {
  const human = humanOutput(global)
  const show = (data: unknown) => process.stdout.write((human ? renderData(data, stdoutStyle(), renderOptions(global)) : JSON.stringify(data, null, 2)) + '\n')
  if (global.json) {
    process.stdout.write(result.text + (result.text.endsWith('\n') ? '' : '\n'))
  } else if (result.envelope) {
    const env = result.envelope
    if (env.ok) show(env.data)
    else printRefusal(env.refuse as RefusalView, label)
  } else if (result.problem) {
    if (result.status < 400) show(result.problem)
    else process.stderr.write(renderProblem(result.problem, result.status, label, stderrStyle()) + '\n')
  } else {
    process.stdout.write(result.text + '\n')
  }
  process.exitCode = result.status < 400 ? EXIT.ok : EXIT.refused
}

function printRefusal(refuse: RefusalView, label: string) {
  process.stderr.write(renderRefusal(refuse, label, stderrStyle()) + '\n')
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (isRefusal(err)) {
    printRefusal(err.toBody(), 'ncm')
    process.exitCode = EXIT.refused
    return
  }
  process.stderr.write(`ncm: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = EXIT.error
})
