// GET /: what this API is, its versions and where to go next.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'

export const root = defineOperation({
  name: 'root',
  method: 'GET',
  path: '/',
  lobe: 'discovery',
  caption: 'What this API is, its versions and its links',
  summary: 'The entry point: name, description, the contract and host versions, and links to the docs, reference, OpenAPI document, route map and admin page.',
  input: noInput,
  output: z.object({
    name: z.string(),
    description: z.string(),
    versions: z.object({ ncm: z.string(), hub: z.string() }),
    links: z.object({
      docs: z.string(), reference: z.string(), openapi: z.string(), host_openapi: z.string(),
      map: z.string(), help: z.string(), admin: z.string(),
    }),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: () => ({
    name: 'NCM Hub caller API',
    description:
      'An honest-compute API: every answer is computed, measured or stored here, never invented; ' +
      'what it cannot do it refuses, with a reason. Logic (SAT), capacity planning, text, access, orchestration and runtime operations.',
    versions: { ncm: NCM_VERSION, hub: HUB_VERSION },
    links: {
      docs: '/docs',
      reference: '/reference',
      openapi: '/api/v1/openapi.json',
      host_openapi: '/docs/json',
      map: '/api/v1/map',
      help: '/api/v1/help',
      admin: '/admin',
    },
  }),
})
