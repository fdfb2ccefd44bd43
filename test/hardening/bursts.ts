// Bursts of requests from another process: a client in the test's own process would send them a turn apart, never as the
// one poll of many sockets that makes a host answer them back to back.
import { spawn } from 'node:child_process'
import { expect } from 'vitest'
import { besideHealth } from './monitor.js'

/**
 * `rounds` rounds of `parallel` requests at once (GETs, or `init` as fetch takes it: a POST's method, headers and body);
 * answers the distinct texts seen and how many answers were not 200.
 */
export function burstsFromAnotherProcess(
  url: string, rounds: number, parallel: number, init?: { method: string; headers: Record<string, string>; body: string },
): Promise<{ texts: string[]; failed: number }> {
  const script = `const texts = new Set(); let failed = 0; const init = ${JSON.stringify(init ?? {})}
for (let r = 0; r < ${rounds}; r++) await Promise.all(Array.from({ length: ${parallel} }, async () => {
  const res = await fetch(${JSON.stringify(url)}, init); const text = await res.text(); if (res.status !== 200) failed++; texts.add(text) }))
process.stdout.write(JSON.stringify({ texts: [...texts], failed }))`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const out: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(Buffer.concat(out).toString())) : reject(new Error(`client exited ${code}`))))
  })
}

/**
 * `rounds` bursts of `parallel` GETs of a path from another process, with the health monitor and the loop watch beside
 * them: every answer a 200, every health check answered, the loop's longest stretch printed (bench:hostile
 * holds the bound). Answers the distinct texts, for the test's own checks of them.
 */
export async function burstsBesideHealth(base: string, path: string, rounds: number, parallel: number): Promise<string[]> {
  const { value: seen, health } = await besideHealth(base, `${rounds} × ${parallel} parallel ${path}`,
    () => burstsFromAnotherProcess(`${base}${path}`, rounds, parallel))
  expect(seen.failed).toBe(0)
  expect(health.failures).toBe(0)
  return seen.texts
}
