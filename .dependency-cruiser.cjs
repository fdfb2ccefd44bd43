// The architecture written down: each rule is named after the reason it exists. `npm test` runs it (pretest).
// TypeScript 7 (native) has no JS API, so dependency-cruiser reads the sources with its swc parser; `import type`
// counts like any import, since a layer that needs another's types depends on it.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles-so-every-module-has-an-order',
      severity: 'error',
      comment: 'A cycle means neither module can be understood, tested or moved without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engines-are-pure-so-they-run-anywhere',
      severity: 'error',
      comment: 'Engines compute from their inputs only: they run in workers, in benches and in tests without the host.',
      from: { path: '^src/engines/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: '^src/engines/' },
    },
    {
      name: 'the-proof-checker-shares-no-code-with-the-solver',
      severity: 'error',
      comment: 'An UNSAT answer is verified by a checker that cannot inherit a solver bug: neither imports the other, nor any other engine.',
      from: { path: '^src/engines/(proof-check|sat)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/engines/', pathNot: '^src/engines/$1/' },
    },
    {
      name: 'engine-tests-read-only-the-repo-root-from-the-app',
      severity: 'error',
      comment: 'Engine tests may locate shared data through version.ts, nothing else of the app.',
      from: { path: '^src/engines/.+\\.test\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/engines/', '^src/version\\.ts$'] },
    },
    {
      name: 'surfaces-do-not-reach-into-each-other',
      severity: 'error',
      comment: 'caller, trading and admin are peers: what two of them share lives below them (access, plugins, store, mill, engines).',
      from: { path: '^src/(caller|trading|admin)/' },
      to: { path: '^src/(caller|trading|admin)/', pathNot: '^src/$1/' },
    },
    {
      name: 'shared-rooms-never-import-a-surface',
      severity: 'error',
      comment: 'What the doors share (access, jobs, mill, store, plugins, renderers, the HTTP vocabulary) serves every surface; a surface it imported would make it that surface\'s. A surface tells a shared room what it needs when it registers (a job\'s DefineOptions, an operation\'s action).',
      from: { path: '^src/(?!(caller|trading|admin|mcp|cli)/)', pathNot: ['^src/(app|server)\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^src/(caller|trading|admin|mcp|cli)/' },
    },
    {
      name: 'inputs-are-read-in-the-mill-so-they-hold-no-host',
      comment: 'An operation\'s input is read by its route and, from a large body\'s bytes, by a mill worker: it imports only what a worker may hold (engines, the HTTP vocabulary, the JSON rules, the body parser\'s rules for JSON text).',
      severity: 'error',
      from: { path: '^src/inputs/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(inputs|engines|http|json)/', '^src/body-parse/json-text\\.ts$'] },
    },
    {
      name: 'mcp-does-not-import-the-cli',
      severity: 'error',
      comment: 'MCP and the CLI are two clients\' views of the same answers: what both render lives below them (src/render/).',
      from: { path: '^src/mcp/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'analysers-are-self-contained-so-they-run-without-the-host',
      severity: 'error',
      comment: 'The dependency analysers read files and interpreters only; they can be run and tested on any tree.',
      from: { path: '^src/analysers/([^/]+)/' },
      to: { path: '^src/', pathNot: '^src/analysers/$1/' },
    },
    {
      name: 'analysers-are-reached-through-their-entry',
      severity: 'error',
      comment: 'Each analyser module has one entry (index.ts); its files can change without touching the app.',
      from: { pathNot: '^src/analysers/' },
      to: { path: '^src/analysers/[^/]+/(?!index\\.ts$)' },
    },
    {
      name: 'only-the-store-opens-databases',
      severity: 'error',
      comment: 'One module owns connections, pragmas and migrations; everything else goes through its repositories.',
      from: { pathNot: '^src/store/' },
      to: { path: 'node_modules/(better-sqlite3|pg|pg-pool)/' },
    },
    {
      name: 'only-the-redis-room-opens-redis-connections',
      severity: 'error',
      comment: 'One module owns Redis connection options (fail fast on the request path, block for BullMQ); the job queue reaches BullMQ in its own file.',
      from: { pathNot: ['^src/redis/', '^src/jobs/bullmq-'] },
      to: { path: 'node_modules/(ioredis|bullmq)/' },
    },
    {
      name: 'nothing-imports-the-test-tree',
      severity: 'error',
      comment: 'test/ builds the app over HTTP; code (and tests next to code) must not depend on it.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'tests-next-to-code-never-build-the-app',
      severity: 'error',
      comment: 'A test beside a module calls that module directly; whole-app tests live in test/ and go through inject or a socket.',
      from: { path: '^src/.+\\.test\\.ts$' },
      to: { path: '^src/(app|server)\\.ts$' },
    },
    {
      name: 'the-flow-is-downward-surfaces-mill-engines',
      severity: 'error',
      comment: 'The mill runs engines for the surfaces; it never calls back up into a surface or the host plugins.',
      from: { path: '^src/mill/' },
      to: { path: '^src/(caller|trading|admin|plugins|cli)/' },
    },
    {
      name: 'not-to-unresolvable-so-no-rule-is-silently-skipped',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve is an import no rule can check.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build)/' },
    moduleSystems: ['es6', 'cjs'],
    // Imports name the compiled file (./x.js); the cruiser retries them as ./x.ts.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    builtInModules: { add: ['bun:test'] },
  },
}
