// GET /help: each operation with its caption, method, path and a runnable curl line built from its example.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { curlLine, exampleCredential, fullPath } from '../../projections.js'

export const help = defineOperation({
  name: 'help',
  method: 'GET',
  path: '/help',
  lobe: 'discovery',
  caption: 'How to call each operation, with a runnable curl line',
  summary: 'For each operation: caption, method, path and a curl command built from its first example (the same examples the contract test runs), addressed to the host the request came to (PUBLIC_URL when set). A line that needs a credential sends it from a shell variable and says so in needs.',
  input: noInput,
  output: z.object({
    operations: z.array(
      z.object({
        op: z.string(),
        caption: z.string(),
        method: z.string(),
        path: z.string(),
        curl: z.string(),
        needs: z.string().nullable().describe('What the curl line needs to answer (a credential and where it comes from); null when it runs as it is'),
      }),
    ),
    cli: z.string(),
  }),
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => ({
    operations: ctx.registry.operations.map((op) => ({
      op: op.name,
      caption: op.caption,
      method: op.method,
      path: fullPath(op),
      curl: curlLine(op, ctx.baseUrl, ctx.auth.open),
      needs: exampleCredential(op, ctx.auth.open)?.needs ?? null,
    })),
    cli: 'npx ncm --help   (the same operations as a command-line tool)',
  }),
})
