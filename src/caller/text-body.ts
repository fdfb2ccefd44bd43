// A text/plain body for the operations that declare one member as their text (textBody): the body is that member, read
// by the host's body reader like any body (large ones in the mill), and the other members come from the query.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { errorCodes } from 'fastify'
import { readBody } from '../plugins/json-body.js'
import { BodyBlocks } from '../body-parse/formats.js'
import { Refusal } from '../http/refusal.js'
import { readsBodyInMill, type AnyOperation } from './operation.js'

/** A query value as the JSON scalar it spells (`2000`, `false`, `null`), else the string itself. */
function scalar(value: string): unknown {
  if (/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(value)) return JSON.parse(value)
  return value
}

/** The members of a text body's input that come from the query, as scalars: all but `member`, which is the body. */
export function queryMembers(query: Record<string, string | string[]>, member: string): Record<string, unknown> {
  if (Object.hasOwn(query, member)) {
    throw new Refusal('invalid_input', `${member} is the text/plain body; it cannot come from the query string too`)
  }
  const input: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new Refusal('invalid_input', `query parameter ${key} is given more than once`)
    input[key] = scalar(value)
  }
  return input
}

/** The input of a text body: the query's members as scalars, the body as `member`. */
export function textBodyInput(query: Record<string, string | string[]>, member: string, body: Record<string, unknown>): Record<string, unknown> {
  return { ...queryMembers(query, member), [member]: body[member] }
}

/** Registers the text/plain parser on the caller's scope: only routes of operations with a textBody take it. */
export function acceptTextBodies(app: FastifyInstance, byName: (name: string) => AnyOperation | undefined): void {
  app.addContentTypeParser('text/plain', async (req: FastifyRequest, payload: Readable) => {
    const op = byName(req.routeOptions.config.operation ?? '')
    const member = op?.textBody
    if (!member) throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(req.headers['content-type'])
    // An operation that reads a large body in the mill gets a large text as its bytes, and its query members beside them.
    const body = await readBody(app.bodyReader, req, payload, { kind: 'text', member, inTheMill: readsBodyInMill(op) })
    const query = req.query as Record<string, string | string[]>
    if (body instanceof BodyBlocks) return body.withFields(queryMembers(query, member))
    return textBodyInput(query, member, body as Record<string, unknown>)
  })
}
