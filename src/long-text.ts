// A string member of a request body too long to hold whole on the event loop: its text in pair-safe parts, each
// cloned from the body thread in a turn of its own. A 15 MB text cloned back at once held the loop 8 ms (one byte a
// character) to 25 ms (two), flattening or scanning it once more as long again; its parts never are joined.
import { pairSafeEnd } from './engines/digest/base64.js'

/** Characters per part (at most 768 KiB of UTF-8); a text longer than one part comes as a LongText. */
export const TEXT_PART_CHARS = 256 * 1024

export class LongText {
  /**
   * `parts` are the text cut by textParts(text, partChars); `wellFormed` says whether the whole has no lone surrogate
   * (the parts are checked where they are cut: a cut never separates a pair, so the whole is well formed when each is).
   */
  constructor(
    readonly parts: readonly string[],
    readonly wellFormed: boolean,
    readonly partChars: number = TEXT_PART_CHARS,
  ) {}

  get length(): number {
    let n = 0
    for (const part of this.parts) n += part.length
    return n
  }
}

/** `text` cut into slices of at most `partChars` characters, never between the two halves of a surrogate pair. */
export function* textParts(text: string, partChars: number = TEXT_PART_CHARS): Generator<string> {
  for (let at = 0; at < text.length; ) {
    const end = pairSafeEnd(text, at, partChars)
    yield text.slice(at, end)
    at = end
  }
}

/** The parts of a text in hand or of a LongText, cut at `partChars` characters the same way either way. */
export function partsOf(text: string | LongText, partChars: number = TEXT_PART_CHARS): Iterable<string> {
  if (typeof text === 'string') return textParts(text, partChars)
  if (text.partChars !== partChars) throw new Error(`a LongText cut at ${text.partChars} characters was asked for parts of ${partChars}`)
  return text.parts
}

const isWellFormedString = (text: string): boolean =>
  (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed.call(text)

/** Whether a text has no lone surrogate (UTF-8 cannot store one); a LongText says so without a scan. */
export const isWellFormed = (text: string | LongText): boolean =>
  typeof text === 'string' ? isWellFormedString(text) : text.wellFormed
