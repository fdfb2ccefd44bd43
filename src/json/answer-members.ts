// The top-level members of an answer's JSON text without parsing the whole: the short members as values, the long ones
// by name and size. A tool answer too large to inline over MCP keeps these (read in the mill, mill/tasks/mcp-answer.ts).

export interface AnswerMembers {
  /** Members whose text is at most `memberChars`, parsed, while they fit `keptChars` in all. */
  kept: Record<string, unknown>
  /** Members left out, with the characters of their text, in answer order (at most `listed`). */
  omitted: Array<{ member: string; chars: number }>
  /** Members left out beyond those listed. */
  omittedMore: number
}

export interface MemberLimits {
  memberChars: number
  keptChars: number
  listed: number
}

// Outside strings only these characters change the state; inside one, a quote ends it and a backslash escapes.
const STRUCTURE = /["{}[\],:]/g
const IN_STRING = /["\\]/g

/**
 * Walks the text's characters by regular-expression jumps (a 15 MB string is one search), in parts as it was decoded.
 * A root that is not an object has no members: everything is omitted under the name "".
 */
export function answerMembers(parts: Iterable<string>, limits: MemberLimits): AnswerMembers {
  const out: AnswerMembers = { kept: {}, omitted: [], omittedMore: 0 }
  let keptChars = 0
  let depth = 0
  let inString = false
  let skipEscaped = false
  let rootIsObject: boolean | null = null
  // The member being read: its text (while short enough to keep), its length, and where its key ends.
  let text = ''
  let chars = 0
  let keyEnd = -1
  let open = false

  const append = (piece: string) => {
    chars += piece.length
    if (chars <= limits.memberChars + 1024) text += piece
    else text = ''
  }
  const close = () => {
    if (!open) return
    open = false
    const key = keyEnd >= 0 && text.length > 0 ? (JSON.parse(text.slice(0, keyEnd)) as string) : null
    const valueChars = keyEnd >= 0 ? chars - keyEnd - 1 : chars
    if (key !== null && valueChars <= limits.memberChars && keptChars + chars <= limits.keptChars) {
      out.kept[key] = JSON.parse(text.slice(keyEnd + 1))
      keptChars += chars
    } else if (out.omitted.length < limits.listed) {
      out.omitted.push({ member: key ?? memberKey, chars: valueChars })
    } else {
      out.omittedMore++
    }
  }
  // A key too long to keep its text is still named, cut.
  let memberKey = ''

  let all = 0
  for (const part of parts) {
    all += part.length
    let i = 0
    if (skipEscaped && part.length > 0) {
      skipEscaped = false
      i = 1
    }
    let from = 0
    while (i < part.length) {
      if (inString) {
        IN_STRING.lastIndex = i
        const hit = IN_STRING.exec(part)
        if (!hit) {
          i = part.length
          break
        }
        if (hit[0] === '\\') {
          i = hit.index + 2
          if (i > part.length) skipEscaped = true
          continue
        }
        inString = false
        i = hit.index + 1
        continue
      }
      STRUCTURE.lastIndex = i
      const hit = STRUCTURE.exec(part)
      if (!hit) {
        i = part.length
        break
      }
      const at = hit.index
      const c = hit[0]
      i = at + 1
      if (c === '"') {
        inString = true
        continue
      }
      if (rootIsObject === null) rootIsObject = c === '{'
      if (!rootIsObject) continue
      if (c === '{' || c === '[') {
        if (depth++ === 0) {
          // The root's brace: the first member starts after it.
          from = i
          open = true
          text = ''
          chars = 0
          keyEnd = -1
        }
      } else if (c === '}' || c === ']') {
        if (--depth === 0) {
          append(part.slice(from, at))
          if (chars > 0) close()
          open = false
        }
      } else if (depth === 1 && c === ':' && keyEnd < 0) {
        append(part.slice(from, at))
        from = at
        keyEnd = chars
        memberKey = text.length > 0 ? (JSON.parse(text) as string).slice(0, 200) : '(a long key)'
      } else if (depth === 1 && c === ',') {
        append(part.slice(from, at))
        close()
        from = i
        open = true
        text = ''
        chars = 0
        keyEnd = -1
      }
    }
    if (open) append(part.slice(from))
  }
  if (rootIsObject === false) out.omitted.push({ member: '', chars: all })
  return out
}
