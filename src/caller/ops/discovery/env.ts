// GET /env: the effective configuration, secrets redacted.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { CONFIG_ALIASES, redactedConfig } from '../../../config.js'

export const env = defineOperation({
  name: 'env',
  method: 'GET',
  path: '/env',
  lobe: 'discovery',
  caption: 'The effective configuration, secrets redacted',
  summary: 'Every setting the host runs with, after defaults and aliases; ADMIN_TOKEN shows only "set" or "unset", credentials in RPC URLs are masked.',
  input: noInput,
  output: z.object({
    effective: z.record(z.string(), z.unknown()),
    aliases: z.array(z.object({ alias: z.string(), canonical: z.string(), meaning: z.string(), used: z.boolean() })),
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: (_input, ctx) => ({
    effective: redactedConfig(ctx.config),
    aliases: CONFIG_ALIASES.map((a) => ({ ...a, used: ctx.config.aliasesUsed.some((u) => u.alias === a.alias) })),
  }),
})
