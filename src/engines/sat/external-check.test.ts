// The solver's proofs checked by the reference tools, when they are installed: drat-trim (DRAT) and lrat-check (LRAT)
// from github.com/marijnheule/drat-trim, found on PATH or through DRAT_TRIM / LRAT_CHECK; CaDiCaL as a second opinion
// on SAT/UNSAT. Neither checker is packaged for Debian: without them these tests are skipped, saying so.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../version.js'
import { CdclSolver } from './cdcl.js'
import { cnfFromClauses, type Cnf } from './cnf.js'
import { parseDimacs, toDimacs } from './dimacs.js'
import { pigeonholeDimacs } from './pigeonhole.js'
import { ProofLog, type ProofFormat } from './proof-log.js'

const SAT_DIR = join(REPO_ROOT, '..', 'shared', 'data', 'sat')

function onPath(command: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' })
  return found.status === 0 ? found.stdout.trim() : null
}

function tool(env: string | undefined, name: string, besides?: string | null): string | null {
  if (env) return existsSync(env) ? env : null
  const next = besides ? join(dirname(besides), name) : null
  return onPath(name) ?? (next && existsSync(next) ? next : null)
}

const dratTrim = tool(process.env.DRAT_TRIM, 'drat-trim')
const lratCheck = tool(process.env.LRAT_CHECK, 'lrat-check', dratTrim)
const cadical = tool(process.env.CADICAL, 'cadical')
for (const [name, path, how] of [
  ['drat-trim', dratTrim, 'set DRAT_TRIM to a drat-trim binary (built from github.com/marijnheule/drat-trim) or put it on PATH'],
  ['lrat-check', lratCheck, 'set LRAT_CHECK, or put lrat-check on PATH or beside drat-trim'],
  ['cadical', cadical, 'apt-get install cadical, or set CADICAL'],
] as const) {
  if (!path) console.warn(`external-check: ${name} not found, its tests are skipped (${how})`)
}

const dir = mkdtempSync(join(tmpdir(), 'ncm-proofs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function unsatInstances(): Array<[string, Cnf]> {
  const out: Array<[string, Cnf]> = []
  for (let holes = 3; holes <= 6; holes++) out.push([`PHP ${holes}`, parseDimacs(pigeonholeDimacs(holes)).cnf])
  for (let seed = 1; out.length < 14; seed++) {
    let state = seed
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0)
    const cnf = cnfFromClauses(Array.from({ length: 190 }, () => Array.from({ length: 3 }, () => (1 + ((next() >>> 8) % 40)) * ((next() >>> 12) & 1 ? 1 : -1))), 40)
    if (new CdclSolver(cnf).solve().status === 'UNSAT') out.push([`random 3-SAT seed ${seed}`, cnf])
  }
  if (existsSync(join(SAT_DIR, 'manifest.tsv'))) {
    for (const row of readFileSync(join(SAT_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1)) {
      const [file, , , expected] = row.split('\t')
      if (expected === 'UNSAT') out.push([file!, parseDimacs(readFileSync(join(SAT_DIR, file!), 'utf8')).cnf])
    }
  }
  return out
}

/** Writes the CNF and the solver's proof of it; answers their paths. */
function written(label: string, cnf: Cnf, format: ProofFormat, assumptions: number[] = []): { cnfPath: string; proofPath: string; core: number[] | null } {
  const log = new ProofLog(format, 1 << 26)
  const outcome = new CdclSolver(cnf, { proof: log, reservedIds: assumptions.length }).solve({ assumptions })
  expect(outcome.status, label).toBe('UNSAT')
  const core = outcome.core ?? []
  const checked = core.length === 0 ? cnf : cnfFromClauses([...clausesOf(cnf), ...core.map((lit) => [lit])], cnf.vars)
  const base = join(dir, label.replace(/[^\w.-]+/g, '_'))
  writeFileSync(`${base}.cnf`, toDimacs(checked))
  writeFileSync(`${base}.${format}`, log.bytes()!)
  return { cnfPath: `${base}.cnf`, proofPath: `${base}.${format}`, core: outcome.core }
}

function clausesOf(cnf: Cnf): number[][] {
  return Array.from({ length: cnf.starts.length - 1 }, (_, c) => Array.from(cnf.lits.subarray(cnf.starts[c], cnf.starts[c + 1])))
}

const run = (binary: string, args: string[]) => spawnSync(binary, args, { encoding: 'utf8', timeout: 120_000 })

describe.skipIf(!dratTrim)('drat-trim accepts the DRAT proofs', () => {
  it.each(unsatInstances())('%s', (label, cnf) => {
    const { cnfPath, proofPath } = written(label, cnf, 'drat')
    const out = run(dratTrim!, [cnfPath, proofPath])
    expect(out.stdout, label).toMatch(/^s VERIFIED$/m)
  })

  it('accepts a refutation under assumptions with the core appended as unit clauses', () => {
    const { cnfPath, proofPath, core } = written('assumptions-drat', parseDimacs('p cnf 4 3\n1 2 0\n-2 3 0\n-3 4 0\n').cnf, 'drat', [3, -1, 2, -4])
    expect(core!.length).toBeGreaterThan(0)
    expect(run(dratTrim!, [cnfPath, proofPath]).stdout).toMatch(/^s VERIFIED$/m)
  })
})

describe.skipIf(!lratCheck)('lrat-check accepts the LRAT proofs and rejects a corrupted one', () => {
  it.each(unsatInstances())('%s', (label, cnf) => {
    const { cnfPath, proofPath } = written(label, cnf, 'lrat')
    const out = run(lratCheck!, [cnfPath, proofPath])
    expect(out.stdout, label).toMatch(/^c VERIFIED$/m)
  })

  it('accepts a refutation under assumptions, and rejects a proof whose lemma was flipped', () => {
    const { cnfPath, proofPath } = written('assumptions-lrat', parseDimacs('p cnf 4 3\n1 2 0\n-2 3 0\n-3 4 0\n').cnf, 'lrat', [3, -1, 2, -4])
    expect(run(lratCheck!, [cnfPath, proofPath]).stdout).toMatch(/^c VERIFIED$/m)
    const php = written('php-flipped', parseDimacs(pigeonholeDimacs(4)).cnf, 'lrat')
    const lines = readFileSync(php.proofPath, 'latin1').split('\n')
    const at = lines.findIndex((line) => /^\d+ -?\d+ .* 0 .* 0$/.test(line) && !line.includes(' d '))
    const parts = lines[at]!.split(' ')
    parts[1] = String(-Number(parts[1]))
    lines[at] = parts.join(' ')
    writeFileSync(php.proofPath, lines.join('\n'))
    expect(run(lratCheck!, [php.cnfPath, php.proofPath]).stdout).toMatch(/NOT VERIFIED/)
  })
})

describe.skipIf(!cadical)('CaDiCaL agrees on SAT and UNSAT', () => {
  const rows = existsSync(join(SAT_DIR, 'manifest.tsv'))
    ? readFileSync(join(SAT_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1).map((row) => row.split('\t'))
    : []
  it.each(rows.map((row) => [row[0]!]))('%s', (file) => {
    const cnf = parseDimacs(readFileSync(join(SAT_DIR, file), 'utf8')).cnf
    const path = join(dir, file.replace(/\//g, '_'))
    writeFileSync(path, toDimacs(cnf))
    const theirs = run(cadical!, ['-q', '-n', path]).status
    expect(new CdclSolver(cnf).solve().status).toBe(theirs === 10 ? 'SAT' : theirs === 20 ? 'UNSAT' : `cadical exit ${theirs}`)
  })
})
