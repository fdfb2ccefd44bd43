// The long text members of a body parsed in the thread, sent back in parts: the thread cuts each member its route takes
// as a LongText (longTextKeys) into TEXT_PART_CHARS parts and posts them on a channel of their own; the loop takes one
// part off it a turn (receiveMessageOnPort: a port's listener would clone every queued part in one turn).
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads'
import { isWellFormed, LongText, TEXT_PART_CHARS, textParts } from '../long-text.js'
import { nextTurn } from '../store/turns.js'

/** A member taken out of the value: its key, how many parts follow on the channel, whether the whole is well formed. */
export interface LongMember {
  key: string
  count: number
  wellFormed: boolean
}

export interface LongMembers {
  members: LongMember[]
  /** The channel's receiving end, transferred with the outcome. */
  port: MessagePort
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** In the thread: takes the listed string members longer than one part out of `value` and posts their parts; null when there are none. */
export function sendLongMembers(value: unknown, keys: readonly string[]): LongMembers | null {
  if (!isPlainObject(value)) return null
  let channel: MessageChannel | null = null
  const members: LongMember[] = []
  for (const key of keys) {
    const text = Object.hasOwn(value, key) ? value[key] : undefined
    if (typeof text !== 'string' || text.length <= TEXT_PART_CHARS) continue
    channel ??= new MessageChannel()
    let count = 0
    let wellFormed = true
    for (const part of textParts(text)) {
      wellFormed &&= isWellFormed(part)
      channel.port1.postMessage(part)
      count++
    }
    value[key] = null // kept in its place (key order) until the parts are put back
    members.push({ key, count, wellFormed })
  }
  return channel ? { members, port: channel.port2 } : null
}

/** On the loop: puts each member back into `value` as a LongText, a part taken off the channel per turn. */
export async function receiveLongMembers(value: Record<string, unknown>, { members, port }: LongMembers): Promise<void> {
  try {
    for (const { key, count, wellFormed } of members) {
      const parts: string[] = []
      for (let seq = 0; seq < count; seq++) {
        await nextTurn()
        const received = receiveMessageOnPort(port)
        if (!received) throw new Error(`the body thread sent ${seq} of the ${count} parts of "${key}"`)
        parts.push(received.message as string)
      }
      value[key] = new LongText(parts, wellFormed)
    }
  } finally {
    port.close()
  }
}
