// Wide members of a body kept as their JSON text across the thread boundary. The structured clone of a 37k-key object
// back from the body's parse held the loop 15–50 ms in one stretch; a string crosses as one copy. The operations that
// name such members (`textMembers`) take them as JsonText and hand the text to the mill, which parses it there.

/** A body member's JSON text, not parsed on the loop: the mill parses it where the work runs. */
export class JsonText {
  constructor(readonly text: string) {}

  /** The value, parsed: only where the text is known to be small. */
  value(): unknown {
    return JSON.parse(this.text)
  }
}

/** A member shorter than this as text is cloned as a value: its clone costs less than a trip through text. */
export const TEXT_MEMBER_MIN_CHARS = 16 * 1024

/**
 * In the thread: takes the named members that are objects or arrays of at least TEXT_MEMBER_MIN_CHARS characters of
 * JSON text out of `body`, and answers their texts (undefined when none is). `body` is nested at most a few hundred
 * levels (deeper bodies cross as text whole), so JSON.stringify cannot overflow the stack.
 */
export function takeTextMembers(body: unknown, members: readonly string[]): Record<string, string> | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const record = body as Record<string, unknown>
  let texts: Record<string, string> | undefined
  for (const name of members) {
    const value = Object.hasOwn(record, name) ? record[name] : undefined
    if (value === null || typeof value !== 'object') continue
    const text = JSON.stringify(value)
    if (text.length < TEXT_MEMBER_MIN_CHARS) continue
    delete record[name]
    ;(texts ??= {})[name] = text
  }
  return texts
}

/** On the loop: the members taken out put back as their text. */
export function putTextMembers(body: unknown, texts: Record<string, string>): unknown {
  const record = body as Record<string, unknown>
  for (const [name, text] of Object.entries(texts)) record[name] = new JsonText(text)
  return record
}
