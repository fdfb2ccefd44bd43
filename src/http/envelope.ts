// The contract envelope of every /api/v1 response (SPEC §1.1), caller operations and admin JSON alike: its schema and the one function that builds it.
import { z } from 'zod'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { refusalSchema, type RefusalBody } from './refusal.js'
import { JsonBytes } from '../json/bytes.js'

export const SURFACE = 'marketing-caller'
/** Where the caller contract is served: everything under it answers in the envelope. */
export const CALLER_PREFIX = '/api/v1'

export const occupancySchema = z.enum(['live-bound', 'shedding', 'draining'])
/** The host's occupancy every envelope carries; admission (plugins/admission.ts) measures it. */
export type Occupancy = z.infer<typeof occupancySchema>

const flags = {
  surface: z.literal(SURFACE),
  ncm: z.string().regex(/^\d+\.\d+\.\d+$/),
  hub: z.string().regex(/^\d+\.\d+\.\d+$/),
  occupancy: occupancySchema,
  service_owns_hardware: z.literal(false),
  invented_metrics: z.literal(false),
  sat_perp_hal: z.literal(true),
}

/** Schema of a successful envelope around `data`. */
export const okEnvelope = <T extends z.ZodType>(data: T) =>
  z.object({ ok: z.literal(true), ...flags, refuse: z.null(), data })

/** Schema of a refusal envelope. */
export const refusalEnvelope = z.object({ ok: z.literal(false), ...flags, refuse: refusalSchema, data: z.null() })

/** Any envelope: what a client can expect from any /api/v1 response. */
export const anyEnvelope = z.union([okEnvelope(z.unknown()), refusalEnvelope])

export interface Envelope<T = unknown> {
  ok: boolean
  surface: typeof SURFACE
  ncm: string
  hub: string
  occupancy: Occupancy
  service_owns_hardware: false
  invented_metrics: false
  sat_perp_hal: true
  refuse: RefusalBody | null
  data: T | null
}

/** Marks an error body so the envelope hook knows to put it in `refuse`, not `data`. */
export class RefusalPayload {
  constructor(readonly body: RefusalBody) {}
}

/**
 * The envelope around an answer already written: the text the envelope's serializer writes (members in the schema's
 * order, `data` last), with the answer's bytes between its head and its closing brace, as they are.
 */
function writtenEnvelope(data: JsonBytes, occupancy: Occupancy): JsonBytes {
  const head = JSON.stringify(envelopeOf(true, occupancy, null, null))
  return data.between(head.slice(0, -'null}'.length), '}')
}

function envelopeOf(ok: boolean, occupancy: Occupancy, refuse: RefusalBody | null, data: unknown): Envelope {
  return {
    ok,
    surface: SURFACE,
    ncm: NCM_VERSION,
    hub: HUB_VERSION,
    occupancy,
    service_owns_hardware: false,
    invented_metrics: false,
    sat_perp_hal: true,
    refuse,
    data,
  }
}

export function envelope(payload: unknown, occupancy: Occupancy): Envelope | JsonBytes {
  if (payload instanceof JsonBytes) return writtenEnvelope(payload, occupancy)
  return payload instanceof RefusalPayload
    ? envelopeOf(false, occupancy, payload.body, null)
    : envelopeOf(true, occupancy, null, payload ?? null)
}
