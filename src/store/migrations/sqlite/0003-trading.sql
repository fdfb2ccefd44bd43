-- The paper-trading platform: datasets of OHLCV bars, stored runs, signals, and the paper ledger (SPEC §3).

-- A dataset is a series of bars of one symbol at one timeframe; its checksum covers the bars' canonical text.
CREATE TABLE datasets (
  id INTEGER PRIMARY KEY,
  symbol TEXT NOT NULL CHECK (length(symbol) BETWEEN 1 AND 32),
  timeframe TEXT NOT NULL CHECK (length(timeframe) BETWEEN 1 AND 16),
  source TEXT NOT NULL CHECK (source IN ('synthetic', 'import')),
  rows INTEGER NOT NULL CHECK (rows >= 0),
  first_ts INTEGER,
  last_ts INTEGER,
  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
  seed INTEGER,                   -- synthetic only: the generator's seed
  generator TEXT,                 -- synthetic only: JSON of the generator's parameters
  origin TEXT,                    -- import only: file name or 'http'
  created_at TEXT NOT NULL,
  UNIQUE (symbol, timeframe),
  CHECK ((source = 'synthetic') = (seed IS NOT NULL))
);

CREATE TABLE bars (
  dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,            -- epoch milliseconds (UTC)
  open REAL NOT NULL CHECK (open > 0),
  high REAL NOT NULL,
  low REAL NOT NULL CHECK (low > 0),
  close REAL NOT NULL CHECK (close > 0),
  volume REAL NOT NULL CHECK (volume >= 0),
  CHECK (low <= open AND low <= close AND open <= high AND close <= high),
  PRIMARY KEY (dataset_id, ts)
) WITHOUT ROWID;

-- Backtests, simulations and signal searches, with the digest of everything that determined the answer.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('backtest', 'simulate', 'max_edge', 'max_edge_v10', 'full_cycle_search')),
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  strategy TEXT,
  params TEXT NOT NULL,           -- JSON
  request TEXT NOT NULL,          -- JSON of the normalised request
  inputs_digest TEXT NOT NULL CHECK (length(inputs_digest) = 64),
  stats TEXT NOT NULL,            -- JSON
  equity TEXT,                    -- JSON [[ts, equity], …], downsampled; backtests only
  elapsed_ms REAL NOT NULL CHECK (elapsed_ms >= 0),
  created_at TEXT NOT NULL
);
CREATE INDEX runs_by_digest ON runs (inputs_digest);
CREATE INDEX runs_by_kind ON runs (kind, id);

CREATE TABLE signals (
  id INTEGER PRIMARY KEY,
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  strategy TEXT NOT NULL,
  params TEXT NOT NULL,           -- JSON
  signal TEXT NOT NULL CHECK (signal IN ('long', 'flat', 'short')),
  bar_ts INTEGER NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('max-edge-signal', 'max-edge-signal-v10', 'full-cycle')),
  run_id INTEGER REFERENCES runs(id),
  created_at TEXT NOT NULL
);
CREATE INDEX signals_recent ON signals (id DESC);

-- The paper ledger. Cash moves only through fills (and the opening deposit), so cash and positions can be re-derived.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  currency TEXT NOT NULL,
  initial_cash REAL NOT NULL CHECK (initial_cash > 0),
  cash REAL NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE cycles (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  signal_id INTEGER NOT NULL REFERENCES signals(id),
  idempotency_key TEXT UNIQUE,
  outcome TEXT NOT NULL CHECK (outcome IN ('ordered', 'no_change')),
  created_at TEXT NOT NULL
);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  cycle_id INTEGER NOT NULL UNIQUE REFERENCES cycles(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  symbol TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
  quantity REAL NOT NULL CHECK (quantity > 0),
  type TEXT NOT NULL CHECK (type = 'market'),
  status TEXT NOT NULL CHECK (status IN ('filled')),
  reference_price REAL NOT NULL CHECK (reference_price > 0),
  created_at TEXT NOT NULL
);

CREATE TABLE fills (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL UNIQUE REFERENCES orders(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  symbol TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
  quantity REAL NOT NULL CHECK (quantity > 0),
  price REAL NOT NULL CHECK (price > 0),
  commission REAL NOT NULL CHECK (commission >= 0),
  slippage_bps REAL NOT NULL CHECK (slippage_bps >= 0),
  bar_ts INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX fills_by_account ON fills (account_id, dataset_id);

CREATE TABLE positions (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  symbol TEXT NOT NULL,
  quantity REAL NOT NULL,         -- signed: negative is short
  avg_price REAL NOT NULL CHECK (avg_price >= 0),
  realized_pnl REAL NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (account_id, dataset_id)
);

CREATE TABLE cash_ledger (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('deposit', 'trade', 'commission')),
  amount REAL NOT NULL,
  balance_after REAL NOT NULL,
  fill_id INTEGER REFERENCES fills(id),
  created_at TEXT NOT NULL,
  CHECK ((kind = 'deposit') = (fill_id IS NULL))
);
CREATE INDEX cash_ledger_by_account ON cash_ledger (account_id, id);

-- Idempotency keys of full-cycle requests: the first answer is kept and replayed.
CREATE TABLE idempotency_keys (
  key TEXT PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
  route TEXT NOT NULL,
  request_digest TEXT NOT NULL CHECK (length(request_digest) = 64),
  status_code INTEGER NOT NULL,
  response TEXT NOT NULL,         -- JSON
  created_at TEXT NOT NULL
);
