// JSON text of a parsed input without recursion: inputs may nest 100 000 deep (a JSON formula), past the depth
// at which JSON.stringify overflows the stack. Same output as JSON.stringify for plain data.

type Frame = { kind: 'array'; items: unknown[]; i: number } | { kind: 'object'; entries: Array<[string, unknown]>; i: number }

export function stringifyDeep(value: unknown): string {
  const out: string[] = []
  const stack: Frame[] = []
  const open = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out.push(v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : JSON.stringify(v))
      return
    }
    const json = (v as { toJSON?: () => unknown }).toJSON
    if (typeof json === 'function') {
      out.push(JSON.stringify(v))
      return
    }
    if (Array.isArray(v)) {
      out.push('[')
      stack.push({ kind: 'array', items: v, i: 0 })
    } else {
      out.push('{')
      const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol')
      stack.push({ kind: 'object', entries, i: 0 })
    }
  }
  open(value)
  while (stack.length) {
    const top = stack[stack.length - 1]!
    if (top.kind === 'array') {
      if (top.i === top.items.length) {
        out.push(']')
        stack.pop()
        continue
      }
      if (top.i > 0) out.push(',')
      open(top.items[top.i++])
    } else {
      if (top.i === top.entries.length) {
        out.push('}')
        stack.pop()
        continue
      }
      if (top.i > 0) out.push(',')
      const [key, v] = top.entries[top.i++]!
      out.push(JSON.stringify(key), ':')
      open(v)
    }
  }
  return out.join('')
}
