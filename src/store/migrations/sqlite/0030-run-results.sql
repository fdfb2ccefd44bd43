-- What a run produced, kept so it can be paged and taken away (issue #27): a backtest's trades one row each, its
-- equity curve in chunks of points, a search's trials (for the parameter heat map and the overfitting verdict),
-- and each run's fingerprint (dataset content, strategy, parameters, costs, engine version, seed) for replay.
ALTER TABLE runs ADD COLUMN fingerprint TEXT CHECK (fingerprint IS NULL OR length(fingerprint) = 64);
ALTER TABLE runs ADD COLUMN engine_version TEXT;
ALTER TABLE runs ADD COLUMN summary TEXT;     -- JSON: what a report shows beyond the statistics (a backtest's monthly returns)
ALTER TABLE datasets ADD COLUMN quality TEXT;  -- JSON of the import's quality report; NULL for datasets stored before it

CREATE TABLE run_trades (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,             -- 1-based, in the engine's order (closed trades by exit, then the open one)
  size REAL NOT NULL,
  entry_bar INTEGER NOT NULL,
  exit_bar INTEGER,
  entry_ts INTEGER NOT NULL,
  exit_ts INTEGER,
  entry_price REAL NOT NULL,
  exit_price REAL,
  pnl REAL NOT NULL,
  return_pct REAL NOT NULL,
  commissions REAL NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE run_equity (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  chunk INTEGER NOT NULL,           -- points [chunk × size, chunk × size + points)
  points INTEGER NOT NULL CHECK (points > 0),
  peak_before REAL NOT NULL,        -- the running peak of equity before the chunk's first point (drawdown needs it)
  data TEXT NOT NULL,               -- base64 of little-endian float64 pairs (epoch ms, equity)
  PRIMARY KEY (run_id, chunk)
) WITHOUT ROWID;

CREATE TABLE run_trials (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,             -- the trial's index in the search's order
  strategy TEXT NOT NULL,
  params TEXT NOT NULL,             -- JSON
  score REAL,                       -- the search's score of the trial (annualised Sharpe), NULL when undefined
  return_pct REAL,
  blocks TEXT NOT NULL,             -- base64 of float64 (count, sum, sum of squares) of its per-bar returns per block
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
