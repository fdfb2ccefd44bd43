// negotiator (jshttp, the parser behind Express's `accepts`) ships no types; this is the part of its API we call.
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> })
    /** The available media types the Accept allows (q > 0), best first: q, then specificity, then order in Accept. */
    mediaTypes(available?: readonly string[]): string[]
  }
  export default Negotiator
}
