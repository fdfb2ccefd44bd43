// The host's OpenAPI document and its JSON and YAML texts, built once per host without one long stretch of the loop.
// Built in one go on the first read after a start, the document took 140-270 ms of the loop's CPU (zod → JSON schema
// of every route) and its YAML ~300 ms more: whoever asked first held every other client that long. The routes'
// schemas are now converted a slice of them per loop turn, the rest of the build is then short, and YAML is encoded
// in the mill.
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { SwaggerTransform } from '@fastify/swagger'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { nextTurn } from '../sched/turns.js'
import { placeRequestExamples, withRequestExamples } from './openapi-examples.js'
import { documentRefusals, routeKey } from './openapi-refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The host's OpenAPI document: read it here rather than through `swagger()`, which builds it in one stretch. */
    hostDocuments: HostDocuments
  }
}

export interface HostDocuments {
  /** @fastify/swagger's document object (the same object every time: never change it). */
  object(): Promise<object>
  /** Its JSON text, encoded. */
  json(): Promise<Buffer>
  /** Its YAML text as @fastify/swagger writes it, encoded. */
  yaml(): Promise<Buffer>
}

/** Loop CPU spent converting route schemas before the next turn: well under the health probe's 50 ms. */
const SLICE_MS = 8
/** Encoding the YAML takes ~0.3 s in a worker; the budget only stops a worker that went wrong. */
const YAML_BUDGET_MS = 30_000
/** All jsonSchemaTransform reads of the document being built: which OpenAPI version to target. */
const TARGET = { openapi: '3.0.3' } as const

type TransformInput = Parameters<SwaggerTransform>[0]
type Transformed = ReturnType<SwaggerTransform>

/** One promise for all callers; a failed one is forgotten, so the next caller tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null
  return () => (made ??= make().catch((err: unknown) => {
    made = null
    throw err
  }))
}

/**
 * The route schema transform for @fastify/swagger, and the host's documents built with it. Call `collect` from an
 * onRoute hook added beside @fastify/swagger's, so both see the same routes.
 */
export function hostDocumentBuilder(app: FastifyInstance): {
  transform: SwaggerTransform
  collect(route: RouteOptions): void
  documents: HostDocuments
} {
  const routes: RouteOptions[] = []
  /** Each route's transform, converted ahead in turns; taken (once) by the build, which otherwise converts it itself. */
  const ahead = new WeakMap<RouteOptions, Transformed>()

  // The transform is a function of the route alone (and the OpenAPI version): converted ahead, it is the same result.
  const transform: SwaggerTransform = (input: TransformInput) => {
    const done = ahead.get(input.route)
    if (!done) return withRequestExamples(jsonSchemaTransform(input), input.route)
    ahead.delete(input.route)
    return done
  }

  async function convertAhead(): Promise<void> {
    let sliceStart = performance.now()
    for (const route of routes) {
      // a route with a transform of its own does not use this one
      if (route.config?.swaggerTransform !== undefined || ahead.has(route)) continue
      const converted = jsonSchemaTransform({ schema: route.schema as TransformInput['schema'], url: route.url, route, openapiObject: TARGET })
      ahead.set(route, withRequestExamples(converted, route))
      if (performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn()
        sliceStart = performance.now()
      }
    }
    await nextTurn()
  }

  const object = once(async () => {
    await convertAhead()
    const doc = app.swagger() as Parameters<typeof documentRefusals>[0]
    // Built once per host and not yet handed to anyone: completed in place.
    const byKey = new Map(routes.flatMap((route) => [route.method].flat().map((method) => [routeKey(method, route.url), route] as const)))
    documentRefusals(doc, (key) => byKey.get(key))
    for (const item of Object.values(doc.paths ?? {})) {
      for (const operation of Object.values(item)) {
        const body = (operation as { requestBody?: Parameters<typeof placeRequestExamples>[0] }).requestBody
        if (body) placeRequestExamples(body)
      }
    }
    return doc as object
  })
  const json = once(async () => Buffer.from(JSON.stringify(await object())))
  const yaml = once(async () => Buffer.from(await app.mill.run('docs.yaml', await object(), { timeoutMs: YAML_BUDGET_MS, op: 'docs', owner: null })))

  return { transform, collect: (route) => void routes.push(route), documents: { object, json, yaml } }
}
