// A parsed JSON value's text written without recursion, a bounded number of tokens per loop turn: for handing a large
// value to the mill as text (its structured clone would be one long stretch of the loop, and one nested 2,000+ levels
// never arrives). Each object's keys are listed once with Object.keys: listing them as entries (jobs/json.ts) made a
// pair per key, 0.4 s for 200k keys.

/** Characters of a long string escaped per token: a turn never escapes more than this much of one string. */
const STRING_SLICE = 64 * 1024

type Frame =
  | { kind: 'array'; items: readonly unknown[]; i: number }
  | { kind: 'object'; object: Record<string, unknown>; keys: string[]; i: number }
  | { kind: 'string'; text: string; i: number }

/** The same text as JSON.stringify of plain data (what a JSON body parses to), with a turn every `stepsPerTurn` steps (an object member, an array item or a slice of a long string each). */
export async function jsonTextInTurns(value: unknown, nextTurn: () => Promise<void>, stepsPerTurn = 4096): Promise<string> {
  // This turn's pieces, joined into one text at each turn: one join of every token at the end cost 40 ms for 200k keys.
  let out: string[] = []
  const texts: string[] = []
  const stack: Frame[] = []
  const open = (v: unknown): void => {
    if (typeof v === 'string' && v.length > STRING_SLICE) {
      out.push('"')
      stack.push({ kind: 'string', text: v, i: 0 })
    } else if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v))
    } else if (Array.isArray(v)) {
      out.push('[')
      stack.push({ kind: 'array', items: v, i: 0 })
    } else {
      out.push('{')
      stack.push({ kind: 'object', object: v as Record<string, unknown>, keys: Object.keys(v), i: 0 })
    }
  }
  open(value)
  for (let budget = stepsPerTurn; stack.length > 0; budget--) {
    if (budget === 0) {
      texts.push(out.join(''))
      out = []
      await nextTurn()
      budget = stepsPerTurn
    }
    const top = stack[stack.length - 1]!
    if (top.kind === 'string') {
      if (top.i === top.text.length) {
        stack.pop()
        out.push('"')
        continue
      }
      let end = Math.min(top.i + STRING_SLICE, top.text.length)
      // Never between the halves of a surrogate pair: JSON.stringify would escape each half on its own.
      const last = top.text.charCodeAt(end - 1)
      if (end < top.text.length && last >= 0xd800 && last <= 0xdbff) end--
      out.push(JSON.stringify(top.text.slice(top.i, end)).slice(1, -1))
      top.i = end
    } else if (top.kind === 'array') {
      if (top.i === top.items.length) {
        stack.pop()
        out.push(']')
        continue
      }
      if (top.i > 0) out.push(',')
      open(top.items[top.i++])
    } else {
      if (top.i === top.keys.length) {
        stack.pop()
        out.push('}')
        continue
      }
      const key = top.keys[top.i++]!
      out.push(`${top.i > 1 ? ',' : ''}${JSON.stringify(key)}:`)
      open(top.object[key])
    }
  }
  texts.push(out.join(''))
  return texts.join('')
}
