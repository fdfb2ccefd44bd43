// The answer to a session-less tools/list, as bytes built once per selection of toolsets. The listing is static and
// about 78 KB: through the SDK each such message cost the loop ~4 ms (a server, the listing stringified, a web Response
// encoded and read back), so 30 agents listing at once held it for ~130 ms. The bytes are those the SDK writes
// (`{"result":…,"jsonrpc":"2.0","id":…}`, checked by test/mcp/tools-list.test.ts); any message that is not a plain
// tools/list, or headers the SDK would refuse or judge, go to the SDK as before.
import type { IncomingHttpHeaders } from 'node:http'

/** The listing's answer around its JSON-RPC id. */
export interface ToolsListBytes {
  head: Buffer
  tail: Buffer
}

export function toolsListBytes(listing: readonly unknown[]): ToolsListBytes {
  return { head: Buffer.from(`{"result":${JSON.stringify({ tools: listing })},"jsonrpc":"2.0","id":`), tail: Buffer.from('}') }
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])

/** The id of a message that is a plain tools/list request (no cursor, no _meta), else null. */
function plainToolsListId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
  const message = body as Record<string, unknown>
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/list') return null
  if (!Object.keys(message).every((key) => MESSAGE_KEYS.has(key))) return null
  const { id, params } = message
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return null
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params) || Object.keys(params).length > 0)) return null
  return id as string | number
}

/**
 * The answer's bytes when the SDK would answer this session-less message with the listing alone: a plain tools/list,
 * an Accept naming both media types, and a protocol version header absent or one the SDK supports.
 */
export function cachedToolsList(body: unknown, headers: IncomingHttpHeaders, supportedVersions: readonly string[],
  bytes: ToolsListBytes): Buffer | null {
  const id = plainToolsListId(body)
  if (id === null) return null
  const accept = headers.accept
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return null
  const version = headers['mcp-protocol-version']
  if (version !== undefined && (typeof version !== 'string' || !supportedVersions.includes(version))) return null
  return Buffer.concat([bytes.head, Buffer.from(JSON.stringify(id)), bytes.tail])
}
