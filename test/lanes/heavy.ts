// Which test files are heavy: their work is CPU (SAT searches, fuzzing, crash loops, browsers, replicas) or their checks
// read the event loop's own CPU time. They run one at a time (heavy-lane.ts), beside the other files.
export const HEAVY_FILES: readonly RegExp[] = [
  // Hardening files no longer assert on loop time; the short ones (bursts, a batch, a download) run beside the others.
  /^test\/hardening\/(?!(skills-md|run-downloads|never-read-streams|db-stats|first-documents|mcp-batches|run-batch|pin-content|command-center-burst|large-bodies|mcp-listing-burst|unmatched-log)\.test\.ts$)/, /^test\/crash\.test\.ts$/, /^test\/fuzz\.test\.ts$/, /^test\/scale\//, /^test\/jobs\/durability\.test\.ts$/,
  /\.browser\.test\.ts$/, /^test\/cli-terminal\.test\.ts$/,
]

/** Whether a test file (a path relative to the repository root) is heavy. */
export const isHeavy = (relativePath: string): boolean => HEAVY_FILES.some((pattern) => pattern.test(relativePath.replaceAll('\\', '/')))
