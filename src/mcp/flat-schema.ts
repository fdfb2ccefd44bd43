// Tool input schemas as function-calling back ends take them: a plain object with properties at the top. An input with
// alternative forms (a union of objects) becomes one object holding every form's properties, all optional, with the
// rule in its description; the operation's zod input still validates every call, so the rule is enforced as before.

type JsonSchema = Record<string, unknown>
export type FlatObjectSchema = JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> }

const ALTERNATIVES = ['anyOf', 'oneOf'] as const

interface Form {
  properties: Record<string, JsonSchema>
  required: string[]
  closed: boolean
}

function formOf(branch: unknown): Form | null {
  if (!branch || typeof branch !== 'object') return null
  const schema = branch as JsonSchema
  if (schema.type !== 'object' || ALTERNATIVES.some((key) => key in schema)) return null
  return {
    properties: (schema.properties as Record<string, JsonSchema> | undefined) ?? {},
    required: (schema.required as string[] | undefined) ?? [],
    closed: schema.additionalProperties === false,
  }
}

/** The rule a flattened union states: which fields make each form. */
function ruleOf(forms: readonly Form[]): string {
  const described = forms.map((form) => {
    const fields = Object.keys(form.properties).map((name) => (form.required.includes(name) ? name : `${name}?`))
    return `{${fields.join(', ')}}`
  })
  return `Give exactly one of these forms (fields marked ? are optional): ${described.join(' or ')}.`
}

/**
 * The schema as a flat object: unchanged when it is one already; a union of object forms merged into one whose
 * properties are all the forms' (a name in several forms with different schemas takes any of them).
 */
export function flatObjectSchema(schema: Readonly<JsonSchema>): FlatObjectSchema {
  const key = ALTERNATIVES.find((k) => Array.isArray(schema[k]))
  if (!key) return { ...schema, type: 'object', properties: (schema.properties as Record<string, JsonSchema> | undefined) ?? {} }
  const forms = (schema[key] as unknown[]).map(formOf)
  if (forms.some((form) => form === null)) throw new Error(`a tool input with a ${key} of other than object forms cannot be flattened`)
  const merged = new Map<string, JsonSchema[]>()
  for (const form of forms as Form[]) {
    for (const [name, property] of Object.entries(form.properties)) {
      const seen = merged.get(name) ?? []
      if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(property))) seen.push(property)
      merged.set(name, seen)
    }
  }
  const properties = Object.fromEntries([...merged].map(([name, variants]) => [name, variants.length === 1 ? variants[0]! : { anyOf: variants }]))
  const { [key]: _forms, type: _type, description, ...rest } = schema
  const rule = ruleOf(forms as Form[])
  return {
    ...rest,
    type: 'object',
    description: typeof description === 'string' ? `${description} ${rule}` : rule,
    properties,
    ...((forms as Form[]).every((form) => form.closed) ? { additionalProperties: false } : {}),
  }
}
