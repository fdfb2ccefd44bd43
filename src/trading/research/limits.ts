// The declared limits of the research jobs (refused with over_limit above them; listed by /system/inventory).

/** Equity points kept with a stored backtest (for the command center's chart). */
export const STORED_EQUITY_POINTS = 600
/** Walk-forward and grid searches: configurations per request, and configurations × bars (each config runs once). */
export const MAX_CONFIGS = 2000
export const MAX_CONFIG_BARS = 150_000_000
export const MAX_V10_PAIRS = 2500
export const SIMULATE_MAX_BAR_STEPS = 20_000_000
