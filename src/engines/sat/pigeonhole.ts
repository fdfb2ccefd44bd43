// The pigeonhole family PHP(n+1, n) in DIMACS: unsatisfiable and exponentially hard for resolution (Haken 1985), so a
// CDCL search on it runs long enough to watch, cancel or saturate a worker with (benches, job and cancel tests).
export function pigeonholeDimacs(holes: number): string {
  const pigeons = holes + 1
  const v = (p: number, h: number) => p * holes + h + 1
  const clauses: string[] = []
  for (let p = 0; p < pigeons; p++) clauses.push(Array.from({ length: holes }, (_, h) => v(p, h)).join(' ') + ' 0')
  for (let h = 0; h < holes; h++)
    for (let a = 0; a < pigeons; a++) for (let b = a + 1; b < pigeons; b++) clauses.push(`-${v(a, h)} -${v(b, h)} 0`)
  return `p cnf ${pigeons * holes} ${clauses.length}\n${clauses.join('\n')}\n`
}
