// POST /chat: refused by nature — this host generates no text.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'

const refusal = () =>
  new Refusal(
    'token_completion_unavailable',
    'this host runs no language model and generates no text; it computes, measures and stores. ' +
      'Try /sat or /jsonsat for logic, /budget to count tokens, /fit or /kv to size a model, /help for the full list.',
    { hints: { instead: ['/api/v1/budget', '/api/v1/fit', '/api/v1/sat', '/api/v1/help'] } },
  )

export const chat = defineOperation({
  name: 'chat',
  method: 'POST',
  path: '/chat',
  lobe: 'orchestration',
  caption: 'Always refuses: token completion is unavailable here',
  summary:
    'Kept so that clients written for chat APIs get a clear, typed refusal (token_completion_unavailable, 501) ' +
    'with pointers to what the host can compute instead.',
  input: z.object({}).passthrough(),
  output: z.null(),
  provenance: ['declared'],
  stability: 'refused',
  refuses: refusal,
  examples: [{ messages: [{ role: 'user', content: 'hello' }] }],
  handler: () => {
    throw refusal()
  },
})
