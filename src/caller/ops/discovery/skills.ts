// GET /skills and /skills.md: every operation as a tool definition (the shape agents and MCP clients use), as JSON or Markdown.
import { z } from 'zod'
import { defineOperation, noInput, type Registry } from '../../operation.js'
import { fullPath, inputJsonSchema } from '../../projections.js'
import { HUB_VERSION, NCM_VERSION } from '../../../version.js'
import { SURFACE } from '../../../http/envelope.js'
import { JsonBytes, RenderedBytes } from '../../../json/bytes.js'
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
  handler: (_input, ctx) => builtFor(ctx.registry).skills,
})

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
    const { markdown, tools } = builtFor(ctx.registry)
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
    // The operations' part is written once per host, as JSON and as Markdown; only the front matter per answer.
    const asJson = new JsonBytes([Buffer.from(JSON.stringify(head).slice(0, -1)), markdown.jsonTail])
    const answer = splicedAnswer(skillsMarkdownOutput, { markdown: '', tools }, { markdown: asJson })
    return new RenderedBytes(answer, [Buffer.from(head), markdown.text])
  },
})

/**
 * Both documents, built once per list of operations (fixed once the host is built): building the Markdown (each input
 * schema as JSON) took ~1 ms per answer, so a burst of 30 held the loop 30 ms (issue #13).
 */
interface Built {
  count: number
  /** /skills' answer, as it is sent. */
  skills: JsonBytes
  /** The Markdown after its front matter: as UTF-8, and as the end of a JSON string (escaped, closing quote included). */
  markdown: { text: Buffer; jsonTail: Buffer }
  tools: number
}

const BUILT = new WeakMap<Registry['operations'], Built>()

function builtFor(registry: Registry): Built {
  const kept = BUILT.get(registry.operations)
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
  const built: Built = {
    count: registry.operations.length,
    skills: writtenBy(skillsOutput, { tools }),
    markdown: { text: Buffer.from(text), jsonTail: Buffer.from(JSON.stringify(text).slice(1)) },
    tools: tools.length,
  }
  BUILT.set(registry.operations, built)
  return built
}
