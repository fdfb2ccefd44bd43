// Builds the app the way tests want it: in-memory SQLite, a small mill, no logger, a fixed or injected clock.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { anyEnvelope } from '../src/http/envelope.js'
import { buildApp, type BuildOptions } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import type { Clock } from '../src/sched/clock.js'
import { z } from 'zod'
import type { AnyOperation } from '../src/caller/operation.js'
import { MAX_TIMEOUT_MS } from '../src/mill/pool.js'
import { REPO_ROOT } from '../src/version.js'

/** The `ncm` binary as package.json names it (the build's one-file bundle of src/cli/bin.ts). */
export const CLI_BIN = join(REPO_ROOT, (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: { ncm: string } }).bin.ncm)

export interface TestAppOptions extends Partial<Omit<BuildOptions, 'config'>> {
  /** Environment variables on top of the test defaults. */
  env?: Record<string, string>
}

export const TEST_ENV: Record<string, string> = {
  DATABASE_PATH: ':memory:',
  RATE_LIMIT_PER_MIN: '0',
  MILL_THREADS: '1',
  LOG_LEVEL: 'silent',
  // The test machine is shared and loaded: event-loop delay alone must not flip tests into shedding.
  // Tests of shedding force it with app.admission.override().
  MAX_EVENT_LOOP_DELAY_MS: '60000',
  // A route that writes a large answer on the event loop fails (src/plugins/serializer.ts).
  LOOP_TRIPWIRE: 'throw',
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ ...TEST_ENV, ...env })
}

/** A clock tests move by hand. */
export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start
  return { now: () => now, advance: (ms) => { now += ms } }
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const { env, ...rest } = options
  const app = await buildApp({ config: testConfig(env), logger: false, tradingSeed: 'small', ...rest })
  await app.ready()
  return app
}

/**
 * For real-socket tests: builds the test app before the file's tests and listens on a loopback port (port 0), closes it
 * after them. Read `app` and `base` (http://127.0.0.1:<port>) inside tests or later hooks.
 */
export function listeningTestApp(options: TestAppOptions = {}): { readonly app: FastifyInstance; readonly base: string } {
  const host = {} as { app: FastifyInstance; base: string }
  beforeAll(async () => {
    host.app = await buildTestApp(options)
    host.base = await host.app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => host.app?.close())
  return host
}

/** Parses a response body as JSON. */
export const json = <T = any>(res: LightMyRequestResponse): T => JSON.parse(res.body) as T

/** The `data` of a successful caller envelope (fails with the refusal shown when there is none). */
export function okData<T = any>(res: LightMyRequestResponse): T {
  const body = json(res)
  expect(res.statusCode, JSON.stringify(body.refuse)).toBe(200)
  expect(body.ok).toBe(true)
  return body.data as T
}

/** Asserts a caller refusal: a contract envelope with this code and status, no data; returns the refusal. */
export function expectRefusal(res: LightMyRequestResponse, code: string, status: number) {
  const body = json(res)
  expect(anyEnvelope.safeParse(body).success, res.body.slice(0, 300)).toBe(true)
  expect(body.ok).toBe(false)
  expect(body.data).toBeNull()
  expect(body.refuse.code, body.refuse.reason).toBe(code)
  expect(body.refuse.http_status).toBe(status)
  expect(res.statusCode).toBe(status)
  return body.refuse
}

/** Whether a caller operation's input takes a time budget (`timeout_ms`). */
export const takesTimeBudget = (op: AnyOperation): boolean => op.input instanceof z.ZodObject && 'timeout_ms' in op.input.shape

/**
 * Sends an example, and once more when it was refused `timeout`: a worker's first task loads what it needs (a
 * tokenizer's ranks took ~5 s at load 11 here), which on a busy machine can pass the default budget. A task past its
 * budget loses its worker, so a second try at the same budget starts as cold: where the operation takes a budget
 * (`takesBudget`), the second try asks for the longest, MAX_TIMEOUT_MS. The answer is checked as the example's.
 */
export async function againWhenColdTimeout(send: (payload: unknown) => Promise<LightMyRequestResponse>, example: unknown,
  takesBudget: boolean): Promise<LightMyRequestResponse> {
  const res = await send(example)
  if (res.statusCode !== 503 || res.json().refuse?.code !== 'timeout') return res
  const isRecord = example !== null && typeof example === 'object' && !Array.isArray(example)
  return send(takesBudget && isRecord ? { ...example, timeout_ms: MAX_TIMEOUT_MS } : example)
}
