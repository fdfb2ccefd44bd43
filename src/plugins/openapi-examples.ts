// Request examples in the OpenAPI documents: a route's tested inputs (config.examples) become its body's examples, so
// the explorer's "Try it out" starts from an input that succeeds instead of one generated from the schema.
import type { RouteOptions } from 'fastify'
import type { SwaggerTransform } from '@fastify/swagger'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Inputs that succeed (a registry's examples): the body's examples (POST) or the query's (GET) in the OpenAPI
     * documents. test/openapi-examples.test.ts runs every one of them through the host.
     */
    examples?: readonly unknown[]
  }
}

type Transformed = ReturnType<SwaggerTransform>
type JsonSchema = Record<string, unknown>

/** The route's examples on its transformed schema (a new object: transforms may be shared). */
export function withRequestExamples(transformed: Transformed, route: Pick<RouteOptions, 'config'>): Transformed {
  const examples = route.config?.examples
  if (!examples?.length) return transformed
  const schema = transformed.schema as JsonSchema & { body?: JsonSchema; querystring?: JsonSchema }
  if (schema.body) return { ...transformed, schema: { ...schema, body: { ...schema.body, examples: [...examples] } } }
  if (schema.querystring) return { ...transformed, schema: { ...schema, querystring: queryWithExample(schema.querystring, examples[0]) } }
  return transformed
}

/** A query's parameters each carry the first example's value (the explorer fills its fields from them). */
function queryWithExample(querystring: JsonSchema, example: unknown): JsonSchema {
  const properties = querystring.properties as Record<string, JsonSchema> | undefined
  if (!properties || typeof example !== 'object' || example === null) return querystring
  const withExamples: Record<string, JsonSchema> = {}
  for (const [name, property] of Object.entries(properties)) {
    const value = (example as Record<string, unknown>)[name]
    withExamples[name] = value === undefined ? property : { ...property, examples: [value] }
  }
  return { ...querystring, properties: withExamples }
}

const isJson = (mediaType: string) => /^application\/(?:[\w.+-]+\+)?json\b/.test(mediaType)

interface MediaObject {
  schema?: unknown
  example?: unknown
  examples?: Record<string, { value?: unknown }>
}

/**
 * A request body taking several media types shares one media object (and its examples) between them: JSON examples
 * stay on the JSON media type, which comes first (the explorer's default); others keep only examples that are text.
 */
export function placeRequestExamples(requestBody: { content?: Record<string, MediaObject> }): void {
  const content = requestBody.content
  if (!content || Object.keys(content).length < 2) return
  const entries = Object.entries(content).sort(([a], [b]) => Number(isJson(b)) - Number(isJson(a)))
  requestBody.content = Object.fromEntries(entries.map(([type, media]) => [type, isJson(type) ? media : textExamplesOnly(media)]))
}

function textExamplesOnly(media: MediaObject): MediaObject {
  const { example, examples, ...rest } = media
  const out: MediaObject = { ...rest }
  if (typeof example === 'string') out.example = example
  const textual = Object.entries(examples ?? {}).filter(([, e]) => typeof e.value === 'string')
  if (textual.length) out.examples = Object.fromEntries(textual)
  return out
}
