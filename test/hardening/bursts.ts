// Bursts of GETs from another process: a client in the test's own process would send them a turn apart, never as the
// one poll of many sockets that makes a host answer them back to back.
import { spawn } from 'node:child_process'

/** `rounds` rounds of `parallel` GETs at once; answers the distinct texts seen and how many answers were not 200. */
export function burstsFromAnotherProcess(url: string, rounds: number, parallel: number): Promise<{ texts: string[]; failed: number }> {
  const script = `const texts = new Set(); let failed = 0
for (let r = 0; r < ${rounds}; r++) await Promise.all(Array.from({ length: ${parallel} }, async () => {
  const res = await fetch(${JSON.stringify(url)}); const text = await res.text(); if (res.status !== 200) failed++; texts.add(text) }))
process.stdout.write(JSON.stringify({ texts: [...texts], failed }))`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const out: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(Buffer.concat(out).toString())) : reject(new Error(`client exited ${code}`))))
  })
}
