// One in-flight run of a probe shared by everyone who asks while it runs: fifty concurrent health checks send one
// SELECT 1 (or one PING/INFO), not fifty. A call after the run settled starts a new one, so every answer was measured
// after the previous answer was given — nothing is kept past the run that produced it.

/** `probe`, but concurrent calls share the run in flight instead of starting their own. */
export function coalesce<T>(probe: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null
  const run = async (): Promise<T> => {
    try {
      return await probe()
    } finally {
      inFlight = null
    }
  }
  return () => (inFlight ??= run())
}
