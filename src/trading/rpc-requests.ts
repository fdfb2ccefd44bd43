// The two probes of an upstream endpoint over undici: a JSON-RPC 2.0 call, and a plain GET; both read a bounded body.
import type { Agent, request } from 'undici'

export type ProbeResult =
  | { kind: 'json-rpc'; method: string; block_height: number | null; value: string }
  | { kind: 'http-get'; http_status: number; bytes: number; content_type: string | null }

export interface ProbeHttp {
  agent: Agent
  /** undici's request, passed in: the prober imports undici on its first probe. */
  request: typeof request
  /** Aborted when the prober stops. */
  signal: AbortSignal
  maxBodyBytes: number
}

/** A JSON-RPC 2.0 call of `method`; 'not-json-rpc-here' when the HTTP status says the URL does not serve JSON-RPC. */
export async function probeJsonRpc(http: ProbeHttp, url: string, method: string, id: number): Promise<ProbeResult | 'not-json-rpc-here'> {
  const res = await http.request(url, {
    dispatcher: http.agent,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: [] }),
    signal: http.signal,
  })
  const text = await readBody(http, res.body, res.headers['content-length'])
  if (res.statusCode === 404 || res.statusCode === 405 || res.statusCode === 501) return 'not-json-rpc-here'
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`HTTP ${res.statusCode}`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new Error(`the response is not JSON (starts with ${JSON.stringify(text.slice(0, 40))})`)
  }
  if (!isObject(body) || body.jsonrpc !== '2.0') throw new Error('the response is not a JSON-RPC 2.0 object')
  if (isObject(body.error)) {
    throw new Error(`JSON-RPC error ${String(body.error.code ?? '?')}: ${String(body.error.message ?? '').slice(0, 200)}`)
  }
  if (!('result' in body)) throw new Error('the JSON-RPC response has neither result nor error')
  const value = body.result
  const blockHeight = typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value)
    ? Number.parseInt(value, 16)
    : typeof value === 'number' && Number.isInteger(value) ? value : null
  return { kind: 'json-rpc', method, block_height: blockHeight, value: JSON.stringify(value).slice(0, 200) }
}

/** A plain GET: any 2xx is a success. */
export async function probeGet(http: ProbeHttp, url: string): Promise<ProbeResult> {
  const res = await http.request(url, { dispatcher: http.agent, method: 'GET', signal: http.signal })
  const text = await readBody(http, res.body, res.headers['content-length'])
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`HTTP ${res.statusCode} to GET`)
  const contentType = res.headers['content-type']
  return {
    kind: 'http-get',
    http_status: res.statusCode,
    bytes: Buffer.byteLength(text),
    content_type: typeof contentType === 'string' ? contentType : null,
  }
}

/** The body as text, refused past maxBodyBytes (declared or as read). */
async function readBody({ maxBodyBytes }: ProbeHttp, body: AsyncIterable<Buffer> & { text(): Promise<string> }, declared: unknown): Promise<string> {
  if (typeof declared === 'string' && Number(declared) > maxBodyBytes) {
    throw new Error(`the response body of ${declared} bytes is over ${maxBodyBytes}`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > maxBodyBytes) throw new Error(`the response body is over ${maxBodyBytes} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
