// Monte Carlo of a strategy on a dataset: bootstrap or GBM paths run in the mill, the summary stored as a run.
import { finite } from '../present.js'
import { Refusal } from '../../http/refusal.js'
import type { SimulateAnswer, SimulateBody } from '../schemas.js'
import type { SimulatePayload } from '../../mill/tasks/trading.js'
import { resolveDataset } from '../datasets.js'
import type { ResearchDeps } from './deps.js'
import { briefOf, needBars, optionsOf, settingsOf, strategyParamsOf } from './inputs.js'
import { SIMULATE_MAX_BAR_STEPS } from './limits.js'

export async function simulate(deps: ResearchDeps, body: SimulateBody): Promise<SimulateAnswer> {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const params = strategyParamsOf(body.strategy, body.params)
  const bars = await deps.bars.get(dataset, null)
  needBars(bars, 3, dataset, null)
  // Each path runs the strategy over a tail of history plus the horizon; the history is at most a few hundred bars.
  const steps = body.paths * (body.horizon + Math.min(bars.ts.length, 1000))
  if (steps > SIMULATE_MAX_BAR_STEPS) {
    throw new Refusal('over_limit', `paths × (horizon + history) is about ${steps} bar steps, over the limit of ${SIMULATE_MAX_BAR_STEPS}; lower paths or horizon`, {
      hints: { limit: { name: 'simulate_bar_steps', value: SIMULATE_MAX_BAR_STEPS, requested: steps } },
    })
  }
  const options = optionsOf(body)
  const spec = { paths: body.paths, horizon: body.horizon, method: body.method, seed: body.seed, ...(body.block ? { block: body.block } : {}) }
  const payload: SimulatePayload = { bars, strategy: body.strategy, params, options, spec }
  const { result, elapsedMs } = await deps.heavy('trading.simulate', 'trading.simulate', payload, body.timeout_ms)
  const mc = finite(result)
  const summary = {
    return_p50_pct: mc.return_pct.p50, probability_of_loss: mc.probability_of_loss, var95_pct: mc.var95_pct,
    cvar95_pct: mc.cvar95_pct, max_drawdown_p50_pct: mc.max_drawdown_pct.p50, sharpe_p50: mc.sharpe.p50, paths: mc.paths,
  }
  const run = await deps.runs.record('simulate', dataset, {
    strategy: body.strategy,
    params,
    request: { ...body, params },
    inputs: { strategy: body.strategy, params, settings: settingsOf(body), spec },
    stats: summary,
    equity: null,
    elapsedMs,
  })
  return {
    run,
    dataset: { ...briefOf(dataset), bars: bars.ts.length },
    strategy: body.strategy,
    params,
    paths_requested: body.paths,
    ...mc,
  }
}
