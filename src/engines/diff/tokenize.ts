// Splits text into the units a diff compares (lines with their terminators, words and the gaps between, code points)
// and interns them as integer ids.

export type TextUnit = 'lines' | 'words' | 'chars'

/** Lines keep their "\n", so a last line without one differs from the same line with one (as in diff/patch). */
export function splitLines(text: string): string[] {
  const lines: string[] = []
  let start = 0
  for (;;) {
    const nl = text.indexOf('\n', start)
    if (nl === -1) break
    lines.push(text.slice(start, nl + 1))
    start = nl + 1
  }
  if (start < text.length) lines.push(text.slice(start))
  return lines
}

const WORD_TOKEN = /[\p{L}\p{M}\p{N}_]+|\s+|[^\p{L}\p{M}\p{N}_\s]/gu

/** Runs of word characters, runs of whitespace, and every other code point on its own. */
export function splitWords(text: string): string[] {
  return text.match(WORD_TOKEN) ?? []
}

/** Code points, so a surrogate pair is never split. */
export const splitChars = (text: string): string[] => Array.from(text)

export function tokenize(text: string, unit: TextUnit): string[] {
  return unit === 'lines' ? splitLines(text) : unit === 'words' ? splitWords(text) : splitChars(text)
}

/** Counts tokens without building them (limits are checked before any work). */
export function countTokens(text: string, unit: TextUnit): number {
  if (unit === 'lines') {
    let count = 0
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
    return text.length > 0 && !text.endsWith('\n') ? count + 1 : count
  }
  if (unit === 'chars') {
    let count = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code < 0xd800 || code > 0xdbff || i + 1 >= text.length) count++
      else {
        const next = text.charCodeAt(i + 1)
        count++
        if (next >= 0xdc00 && next <= 0xdfff) i++
      }
    }
    return count
  }
  let count = 0
  WORD_TOKEN.lastIndex = 0
  while (WORD_TOKEN.exec(text) !== null) count++
  return count
}

/** Maps equal tokens of both sides to the same small integer. */
export function intern(a: readonly string[], b: readonly string[]): { a: Int32Array; b: Int32Array } {
  const ids = new Map<string, number>()
  const idsOf = (tokens: readonly string[]) => {
    const out = new Int32Array(tokens.length)
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!
      let id = ids.get(token)
      if (id === undefined) {
        id = ids.size
        ids.set(token, id)
      }
      out[i] = id
    }
    return out
  }
  return { a: idsOf(a), b: idsOf(b) }
}
