// MCP messages start their work one per turn of the event loop. A JSON-RPC batch hands the SDK's handlers every
// message in one turn, so their synchronous work ran back to back: 100 `openapi` tool calls in one POST held the loop
// ~1 s. Each handler awaits its own turn first; the next one's turn is asked for only once this one has had its own.
import { nextTurn } from '../store/turns.js'

let last: Promise<void> = Promise.resolve()

/** Resolves in a turn of the loop no other caller of it resumes in. */
export function ownTurn(): Promise<void> {
  const mine = last.then(nextTurn)
  last = mine
  return mine
}
