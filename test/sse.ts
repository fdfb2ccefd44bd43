// A Server-Sent Events reader for tests that hold a real stream (jobs' …/events, directly or through nginx).

export interface SseEvent { id: string | null; event: string; data: any }

/** Reads a text/event-stream body into events until it ends; `onEvent` sees each as it arrives. */
export async function readEvents(body: AsyncIterable<Buffer>, onEvent: (e: SseEvent) => void = () => {}): Promise<{ events: SseEvent[]; comments: number }> {
  const events: SseEvent[] = []
  let comments = 0
  let buffer = ''
  for await (const chunk of body) {
    buffer += chunk.toString('utf8')
    let cut: number
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut)
      buffer = buffer.slice(cut + 2)
      const fields: Record<string, string> = {}
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments++
        const at = line.indexOf(': ')
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2)
      }
      if (fields.event) {
        const event = { id: fields.id ?? null, event: fields.event, data: JSON.parse(fields.data ?? 'null') }
        events.push(event)
        onEvent(event)
      }
    }
  }
  return { events, comments }
}
