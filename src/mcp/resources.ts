// MCP resources: skills.md, the lexicon, the OpenAPI documents, each dataset's metadata and each pin by digest. Each
// read and the listing ask the access policy as the HTTP route of the same data does (src/access/doors.ts).
import { Refusal } from '../http/refusal.js'
import { hashedPin, pinRepository, PIN_DIGEST, type PinRecord } from '../access/pins.js'
import { runOperation } from '../caller/gate.js'
import type { OperationContext } from '../caller/operation.js'
import type { Action } from '../access/policy.js'
import { datasetView } from '../trading/datasets.js'
import { MCP_INLINE_ANSWER_CHARS } from './tool-answer.js'
import { JsonBytes, RenderedBytes } from '../json/bytes.js'
import type { TradingService } from '../trading/service.js'

export const RESOURCE_SCHEME = 'ncm'
/** Pins listed by resources/list, newest first; older ones are still read by digest through the template. */
export const LISTED_PINS = 100

export interface ResourceEntry {
  uri: string
  name: string
  title: string
  description?: string
  mimeType: string
}

export interface ResourceBody {
  uri: string
  mimeType: string
  text: string
}

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${RESOURCE_SCHEME}://datasets/{dataset}`,
    name: 'dataset',
    title: 'A trading dataset\'s metadata',
    description: 'Symbol, timeframe, source, rows, first and last bar, checksum (and the seed of synthetic data), by dataset id, ' +
      'symbol, or symbol@timeframe when a symbol has several (as the trading tools\' `dataset`), e.g. ncm://datasets/SYN-DAILY.',
    mimeType: 'application/json',
  },
  {
    uriTemplate: `${RESOURCE_SCHEME}://pins/{digest}`,
    name: 'pin',
    title: 'A pinned object by digest',
    description: 'The content of a pin (sha256:<64 hex>), re-hashed on read; a pin whose bytes no longer match its digest is refused.',
    mimeType: 'application/octet-stream',
  },
] as const

interface ResourceDeps {
  ctx: OperationContext
  trading: TradingService
}

/** The documents of the caller surface, each read through its operation (same gate, same data as over HTTP). */
const DOCUMENTS: ReadonlyArray<ResourceEntry & { read(ctx: OperationContext): Promise<string> }> = [
  {
    uri: `${RESOURCE_SCHEME}://skills.md`,
    name: 'skills.md',
    title: 'Every operation as a tool definition, in Markdown',
    mimeType: 'text/markdown',
    read: async (ctx) => {
      const answer = await runNamed(ctx, 'skills_md')
      return answer instanceof RenderedBytes ? answer.renderedText() : (answer as { markdown: string }).markdown
    },
  },
  {
    uri: `${RESOURCE_SCHEME}://lexicon`,
    name: 'lexicon',
    title: 'Glossary of every term the API uses',
    mimeType: 'application/json',
    read: async (ctx) => JSON.stringify(await runNamed(ctx, 'lexicon'), null, 2),
  },
  {
    uri: `${RESOURCE_SCHEME}://openapi/caller.json`,
    name: 'openapi-caller',
    title: 'OpenAPI 3.0.3 document of the caller API (/api/v1/openapi.json)',
    mimeType: 'application/json',
    // The operation answers its document as text already written (written once per host).
    read: async (ctx) => textOf(await runNamed(ctx, 'openapi')),
  },
  {
    uri: `${RESOURCE_SCHEME}://openapi/host.json`,
    name: 'openapi-host',
    title: 'OpenAPI document of the whole host (/docs/json)',
    mimeType: 'application/json',
    // the host's text, encoded once: decoded here rather than the document built or serialised on the loop
    read: async (ctx) => (await ctx.host.hostDocuments.json()).toString(),
  },
]

/** A value's JSON text: a written answer's own, else serialised. */
const textOf = (value: unknown): string => (value instanceof JsonBytes ? value.text() : JSON.stringify(value))

async function runNamed(ctx: OperationContext, name: string): Promise<unknown> {
  const op = ctx.registry.byName(name)
  if (!op) throw new Error(`the registry has no operation ${name}`)
  return runOperation(op, {}, ctx)
}

const datasetUri = (id: number) => `${RESOURCE_SCHEME}://datasets/${id}`
/** A dataset reference is at most this long (a symbol is at most 32 characters, a timeframe 16). */
const MAX_DATASET_REF = 64

/** The dataset part of a URI, percent-decoded (a symbol may hold characters a URI escapes). */
function datasetRef(part: string): string {
  let ref: string
  try {
    ref = decodeURIComponent(part)
  } catch {
    throw new Refusal('invalid_input', `the dataset in a ${RESOURCE_SCHEME}://datasets/ URI is not valid percent-encoding`)
  }
  if (ref.length === 0 || ref.length > MAX_DATASET_REF) {
    throw new Refusal('invalid_input', `a dataset reference is an id, a symbol or symbol@timeframe of at most ${MAX_DATASET_REF} characters`)
  }
  return ref
}
/** A pin's URI starts so. */
export const PIN_URI_PREFIX = `${RESOURCE_SCHEME}://pins/`
const pinUri = (digest: string) => `${PIN_URI_PREFIX}${digest}`

/** The action of the access policy a resource's read is: documents and datasets as their routes, a pin by digest public. */
export function resourceAction(uri: string): Action {
  if (uri.startsWith(PIN_URI_PREFIX)) return 'pin.read'
  if (uri.startsWith(`${RESOURCE_SCHEME}://datasets/`)) return 'dataset.read'
  return 'host.read'
}

/** The listing: documents and datasets for everyone; the newest pins only for a principal that may list pins (admin:read). */
export async function listResources({ ctx, trading }: ResourceDeps): Promise<ResourceEntry[]> {
  const datasets = (await trading.repo.datasets()).map((row) => ({
    uri: datasetUri(row.id),
    name: `dataset-${row.id}`,
    title: `${row.symbol} ${row.timeframe} (${row.source}, ${row.rows} bars)`,
    mimeType: 'application/json',
  }))
  const listsPins = ctx.policy.allows(ctx.principal, 'pin.list')
  const pins = (listsPins ? await pinRepository(ctx.store.sql).latest(LISTED_PINS) : []).map((pin) => ({
    uri: pinUri(pin.digest),
    name: pin.digest,
    title: pin.label ?? `pin ${pin.digest.slice(0, 19)}…`,
    description: `${pin.size} bytes, pinned ${pin.created_at}`,
    mimeType: pin.media_type,
  }))
  return [...DOCUMENTS.map(({ read: _read, ...entry }) => entry), ...datasets, ...pins]
}

/** Reads one resource; an unknown URI is a not_found refusal. */
export async function readResource(uri: string, { ctx, trading }: ResourceDeps): Promise<ResourceBody> {
  ctx.policy.authorize(ctx.principal, resourceAction(uri))
  const document = DOCUMENTS.find((d) => d.uri === uri)
  if (document) return { uri, mimeType: document.mimeType, text: await document.read(ctx) }

  const dataset = new RegExp(`^${RESOURCE_SCHEME}://datasets/([^/?#]{1,${MAX_DATASET_REF * 3}})$`).exec(uri)
  if (dataset) {
    // The same reference the trading tools take: an id, a symbol, or symbol@timeframe (ambiguity is refused, naming them).
    const row = await trading.dataset(datasetRef(dataset[1]!))
    return { uri, mimeType: 'application/json', text: JSON.stringify(datasetView(row), null, 2) }
  }

  const pin = new RegExp(`^${RESOURCE_SCHEME}://pins/(.+)$`).exec(uri)
  if (pin) {
    const digest = decodedDigest(pin[1]!)
    if (!PIN_DIGEST.test(digest)) throw new Refusal('invalid_input', `a pin digest is sha256:<64 lowercase hex>; got ${digest.slice(0, 80)}`)
    // Hashed, and its characters counted, in the mill when large: nothing is decoded here before it is known to fit.
    const found = await hashedPin(pinRepository(ctx.store.sql), digest, {
      mill: ctx.mill, owner: ctx.principal.owner, op: 'resources/read', hold: ctx.holdAnswer,
    }, false)
    if (!found) throw new Refusal('not_found', `no pin ${digest}`)
    const { record, read } = found
    if (read.actualDigest !== digest) {
      throw new Refusal('conflict', `pin ${digest} no longer matches its content (now ${read.actualDigest})`)
    }
    // The SDK writes a message at once: a 15 MB pin as a resource held the loop 40–60 ms. Larger pins are read over HTTP.
    if (read.chars > MCP_INLINE_ANSWER_CHARS) {
      throw new Refusal('over_limit', `pin ${digest} is ${read.chars} characters, over the ${MCP_INLINE_ANSWER_CHARS} an MCP answer ` +
        `inlines; read it with POST ${ctx.baseUrl}/api/v1/pin {"digest": "${digest}"} (its answer is written in the mill)`, {
        hints: { limit: 'MCP_INLINE_ANSWER_CHARS', value: MCP_INLINE_ANSWER_CHARS, chars: read.chars },
      })
    }
    // The resource's text is a string (the SDK's message): decoded here, at most MCP_INLINE_ANSWER_CHARS characters.
    return { uri, mimeType: record.media_type, text: Buffer.concat(read.stored).toString('utf8') }
  }
  throw new Refusal('not_found', `no resource ${uri.slice(0, 200)}; resources/list and resources/templates/list name them`)
}

/** A digest as the URI carries it, percent-decoded; a malformed escape is the client's input, refused as such. */
function decodedDigest(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new Refusal('invalid_input', `the pin URI holds a malformed percent-escape: ${JSON.stringify(text.slice(0, 80))}; a pin digest is sha256:<64 lowercase hex>`)
  }
}
