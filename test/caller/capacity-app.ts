// One app per capacity test file, kept out of admission's way, and a POST helper for its operations.
import { afterAll, beforeAll } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'

/** Registers the app's lifetime hooks in the calling file; returns a POST to /api/v1. */
export function capacityApp() {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
    // These tests are about capacity answers, not admission: a loaded test machine must not shed the mill-backed ones.
    app.admission.override('live-bound')
  })
  afterAll(async () => app.close())
  return (path: string, payload: unknown) =>
    app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { accept: 'application/json' }, payload: payload as object })
}
