// An input member that takes a long text in parts (LongText) as well as a string: the body reader leaves such a member
// of a body parsed in the thread in parts when it is longer than one part, and joins no other (long-text.ts).
import { z } from 'zod'
import { LongText } from './long-text.js'

const takingParts = new WeakSet<object>()

/** A text member (documented as a string): a string, or a LongText when the body reader kept it in parts. */
export function textInput(description: string): z.ZodType<string | LongText> {
  const schema = z
    .custom<string | LongText>((v) => typeof v === 'string' || v instanceof LongText, { message: 'Invalid input: expected string' })
    .meta({ type: 'string', description })
  takingParts.add(schema)
  return schema
}

const keysBySchema = new WeakMap<object, readonly string[]>()

/** The members of an object body schema that take a LongText, optional or not (none for any other schema); worked out once a schema. */
export function longTextKeys(schema: unknown): readonly string[] {
  if (!(schema instanceof z.ZodObject)) return []
  let keys = keysBySchema.get(schema)
  if (!keys) {
    keys = Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([, member]) => takingParts.has(member instanceof z.ZodOptional ? member.unwrap() : member))
      .map(([key]) => key)
    keysBySchema.set(schema, keys)
  }
  return keys
}
