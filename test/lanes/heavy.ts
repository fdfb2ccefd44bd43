// Which test files are heavy: their work is CPU (SAT searches, fuzzing, crash loops, browsers, replicas) or their checks
// read the event loop's own CPU time. They run one at a time (heavy-lane.ts), beside the other files.
export const HEAVY_FILES: readonly RegExp[] = [
  /^test\/hardening\//, /^test\/crash\.test\.ts$/, /^test\/fuzz\.test\.ts$/, /^test\/scale\//, /^test\/jobs\/durability\.test\.ts$/,
  /\.browser\.test\.ts$/, /^test\/cli-terminal\.test\.ts$/,
]

/** Whether a test file (a path relative to the repository root) is heavy. */
export const isHeavy = (relativePath: string): boolean => HEAVY_FILES.some((pattern) => pattern.test(relativePath.replaceAll('\\', '/')))
