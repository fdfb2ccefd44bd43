// How much of a backtest's curve and trade list one answer carries; the stored run pages the rest
// (GET /api/v11/runs/{id}/equity and /trades, whole as CSV).

/** Points of an answer's equity curve at most: a longer curve is downsampled (each bucket keeps its low and its high). */
export const EQUITY_MAX_POINTS = 10_000

/** Trades inline in an answer at most: the first ones, in the run's order. */
export const INLINE_TRADES_MAX = 1_000
