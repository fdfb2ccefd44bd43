// GET /skills and /skills.md: every operation as a tool definition (the shape agents and MCP clients use), as JSON or Markdown.
import { z } from 'zod'
import { defineOperation, noInput, type Registry } from '../../operation.js'
import { fullPath, inputJsonSchema } from '../../projections.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'
import { SURFACE } from '../../../http/envelope.js'
import { JsonBytes } from '../../../json/bytes.js'
import { splicedAnswer, writtenBy } from '../../../json/serializer.js'

const tool = z.object({
  name: z.string(),
  description: z.string(),
  method: z.string(),
  path: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  example: z.unknown(),
  heavy: z.boolean(),
})

function toolsOf(registry: Registry) {
  return registry.operations.map((op) => ({
    name: op.name,
    description: `${op.caption}. ${op.summary}`,
    method: op.method,
    path: fullPath(op),
    inputSchema: inputJsonSchema(op),
    example: op.examples[0] ?? {},
    heavy: op.heavy,
  }))
}

const skillsOutput = z.object({ tools: z.array(tool) })
const skillsMarkdownOutput = z.object({ markdown: z.string(), tools: z.number().int() })

export const skills = defineOperation({
  name: 'skills',
  method: 'GET',
  path: '/skills',
  lobe: 'discovery',
  caption: 'Every operation as a tool definition with a JSON Schema input',
  summary: 'name, description, inputSchema (JSON Schema) and an example for each operation: load them as tools in an agent or an MCP client.',
  input: noInput,
  output: skillsOutput,
  provenance: ['declared'],
  examples: [{}],
  handler: (_input, ctx) => skillsBytes(ctx.registry),
})

/** The list is fixed once the host is built: written once per list of operations and sent as those bytes after. */
const SKILLS = new WeakMap<Registry['operations'], { count: number; bytes: JsonBytes }>()

function skillsBytes(registry: Registry): JsonBytes {
  const kept = SKILLS.get(registry.operations)
  if (kept && kept.count === registry.operations.length) return kept.bytes
  const bytes = writtenBy(skillsOutput, { tools: toolsOf(registry) })
  SKILLS.set(registry.operations, { count: registry.operations.length, bytes })
  return bytes
}

export const skillsMarkdown = defineOperation({
  name: 'skills_md',
  method: 'GET',
  path: '/skills.md',
  lobe: 'discovery',
  caption: 'The tool definitions as Markdown with the envelope flags in front matter',
  summary: 'Served as text/markdown; send Accept: application/json to get the same Markdown inside the envelope.',
  input: noInput,
  output: skillsMarkdownOutput,
  provenance: ['declared'],
  examples: [{}],
  render: { contentType: 'text/markdown; charset=utf-8', body: (data) => data.markdown },
  handler: (_input, ctx) => {
    const { text, textTail, tools } = operationsMarkdown(ctx.registry)
    const front = [
      '---',
      `surface: ${SURFACE}`,
      `ncm: ${NCM_VERSION}`,
      `hub: ${HUB_VERSION}`,
      `occupancy: ${ctx.admission.state()}`,
      'service_owns_hardware: false',
      'invented_metrics: false',
      'sat_perp_hal: true',
      '---',
      '',
    ]
    const head = front.join('\n') + '\n'
    // The operations' part is escaped once per host; only the front matter is written per answer.
    const markdown = new JsonBytes([Buffer.from(JSON.stringify(head).slice(0, -1)), textTail])
    const answer = splicedAnswer(skillsMarkdownOutput, { markdown: '', tools }, { markdown })
    return new JsonBytes(answer.chunks, { of: { markdown: head + text, tools } })
  },
})

/**
 * The Markdown of every operation, built once per list of operations (fixed once the host is built): building it (each
 * input schema as JSON) took ~1 ms per answer, so a burst of 30 held the loop 30 ms (issue #13). Only the front matter,
 * whose occupancy changes, is written per answer.
 */
const OPERATIONS_MD = new WeakMap<Registry['operations'], { count: number; text: string; textTail: Buffer; tools: number }>()

/** `textTail`: the text as the end of a JSON string (escaped, with the closing quote), to follow the front matter's. */
function operationsMarkdown(registry: Registry): { text: string; textTail: Buffer; tools: number } {
  const kept = OPERATIONS_MD.get(registry.operations)
  if (kept && kept.count === registry.operations.length) return kept
  const tools = toolsOf(registry)
  const lines = [
    '# NCM Hub skills',
    '',
    `${tools.length} operations. Every response is wrapped in the contract envelope; refusals carry a code and a reason.`,
    '',
  ]
  for (const t of tools) {
    lines.push(`## ${t.name}`, '', `\`${t.method} ${t.path}\`${t.heavy ? ' (heavy: runs in the worker pool)' : ''}`, '', t.description, '')
    lines.push('Input schema:', '', '```json', JSON.stringify(t.inputSchema, null, 2), '```', '')
    lines.push('Example:', '', '```json', JSON.stringify(t.example), '```', '')
  }
  const text = lines.join('\n')
  const built = { count: registry.operations.length, text, textTail: Buffer.from(JSON.stringify(text).slice(1)), tools: tools.length }
  OPERATIONS_MD.set(registry.operations, built)
  return built
}
