// Helpers of the tests that compare a body read on the loop with the same body read in the mill (issue #30 item 1).
import type { FastifyInstance } from 'fastify'
import { OFF_LOOP_BODY_BYTES } from '../src/body-parse/reader.js'

/** The same JSON text padded with whitespace past the size the loop reads: read in the mill, the same value. */
export const padded = (text: string): string => text + ' '.repeat(OFF_LOOP_BODY_BYTES + 1)

/** A caller route given a body as it is. */
export const postText = (host: FastifyInstance, path: string, text: string, headers: Record<string, string> = {}) =>
  host.inject({ method: 'POST', url: `/api/v1${path}`, headers: { 'content-type': 'application/json', ...headers }, payload: text })

/** Members that differ from run to run: meta, a job's ms, a solver's times. */
const VARYING = new Set(['meta', '_meta', 'ms', 'time_ms', 'check_ms'])

/** An answer's JSON as a value without what differs from run to run (in a rendered text too: its time_ms lines). */
export const comparable = (body: string): unknown => JSON.parse(body, (key, value: unknown) =>
  VARYING.has(key) ? undefined : key === 'text' && typeof value === 'string' ? value.replace(/time_ms.*\n/g, '') : value)
