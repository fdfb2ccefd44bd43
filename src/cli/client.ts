// A small HTTP client for the ncm binary (undici), returning the envelope or problem it got.
import { request } from 'undici'

export interface CallRequest {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  body?: string
  contentType?: string
  accept?: string
  token?: string
  /** RFC 7240 preferences, e.g. 'respond-async' to get a job instead of waiting. */
  prefer?: string
}

export interface CallResult {
  status: number
  text: string
  envelope?: { ok: boolean; data: unknown; refuse: unknown }
  problem?: Record<string, unknown>
}

export async function callApi(baseUrl: string, req: CallRequest): Promise<CallResult> {
  const url = new URL(req.path, baseUrl.endsWith('/') ? baseUrl : baseUrl + '/')
  const headers: Record<string, string> = {}
  if (req.body !== undefined) headers['content-type'] = req.contentType ?? 'application/json'
  if (req.accept) headers.accept = req.accept
  if (req.token) headers.authorization = `Bearer ${req.token}`
  if (req.prefer) headers.prefer = req.prefer
  let res
  try {
    res = await request(url, { method: req.method, headers, body: req.body, headersTimeout: 120_000, bodyTimeout: 120_000 })
  } catch (err) {
    throw new Error(`cannot reach ${url.origin}: ${(err as Error).message} (start the server with npm start, or pass --url)`)
  }
  const text = await res.body.text()
  const result: CallResult = { status: res.statusCode, text }
  const type = String(res.headers['content-type'] ?? '')
  if (type.includes('json')) {
    const parsed = JSON.parse(text) as Record<string, unknown>
    if ('ok' in parsed && 'refuse' in parsed && 'data' in parsed) result.envelope = parsed as CallResult['envelope']
    else result.problem = parsed
  }
  return result
}
