// Refuse before a job exists: a research function run with a heavy step that stops it, so every input check it makes
// before the work (dataset, bars in range, parameters, grid and step limits) answers exactly as the sync call would.
import type { ResearchDeps } from './deps.js'

/** Thrown where the heavy work would start: every check before it passed. */
class ChecksPassed extends Error {
  override name = 'ChecksPassed'
}

/** The same deps, but heavy work is never started (nothing after it runs, so nothing is stored). */
export function checkingDeps(deps: ResearchDeps): ResearchDeps {
  const stop = async (): Promise<never> => {
    throw new ChecksPassed()
  }
  return { ...deps, heavy: stop, heavySplit: stop }
}

/** Resolves when a research call on checkingDeps reached its heavy step; rethrows its refusal otherwise. */
export async function passesChecks(run: Promise<unknown>): Promise<void> {
  try {
    await run
  } catch (err) {
    if (!(err instanceof ChecksPassed)) throw err
  }
}
