// Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KiB, a malformed request line): answered
// in the surface's format when the request line can be read — an envelope under /api/v1, problem+json elsewhere.
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { Refusal } from '../http/refusal.js'
import { problemOf, PROBLEM_CONTENT_TYPE } from '../http/problem.js'
import { securityHeadersFor } from './limits.js'
import { callerRefusalText, isCallerUrl } from './framework-errors.js'
import { shortUrl } from '../http/redact.js'

/** The path of the request line at the start of the bytes the parser failed on, when it is there. */
export function requestPathOf(raw: unknown): string | null {
  if (!Buffer.isBuffer(raw)) return null
  const line = /^[A-Z]{3,10} (\S{1,8192}) HTTP\/1\.[01]\r?\n/.exec(raw.subarray(0, 8300).toString('latin1'))
  return line ? line[1]! : null
}

/** Fastify's `clientErrorHandler` (bound to the root instance). */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  this.log.trace({ err }, 'client error')
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const body = '{"error":"Request Timeout","message":"Client Timeout","statusCode":408}'
    if (socket.writable) socket.write(`HTTP/1.1 408 Request Timeout\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`)
    socket.destroy(err)
    return
  }
  const refusal = err.code === 'HPE_HEADER_OVERFLOW'
    ? new Refusal('headers_too_large', 'the request line and headers are over the 16 KiB this host reads')
    : new Refusal('invalid_input', 'the request is not valid HTTP/1.1')
  const path = requestPathOf(err.rawPacket)
  let type: string
  let body: string
  if (path !== null && isCallerUrl(path)) {
    type = 'application/json; charset=utf-8'
    body = callerRefusalText(this, refusal)
  } else {
    type = PROBLEM_CONTENT_TYPE
    body = JSON.stringify(problemOf(refusal, path === null ? '' : shortUrl(path)))
  }
  const security = securityHeadersFor(path ?? '')
  const headers = [
    `HTTP/1.1 ${refusal.statusCode} ${STATUS_CODES[refusal.statusCode]}`,
    `Content-Type: ${type}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...security.map(([name, value]) => `${name}: ${value}`),
  ]
  if (socket.writable) socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`)
  socket.destroy(err)
}
