// MCP messages start their work one per turn of the event loop. A JSON-RPC batch hands the SDK's handlers every
// message in one turn, so their synchronous work ran back to back: 100 `openapi` tool calls in one POST held the loop
// ~1 s. Each handler awaits its own turn first (the chain lives in store/turns.ts, shared with the dataset pages).
export { ownTurn } from '../store/turns.js'
