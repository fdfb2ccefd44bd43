-- PostgreSQL translation of sqlite/0030-run-results.sql.
-- What a run produced, kept so it can be paged and taken away (issue #27): a backtest's trades one row each, its
-- equity curve in chunks of points, a search's trials (for the parameter heat map and the overfitting verdict),
-- and each run's fingerprint (dataset content, strategy, parameters, costs, engine version, seed) for replay.
ALTER TABLE runs ADD COLUMN fingerprint text CHECK (fingerprint IS NULL OR length(fingerprint) = 64);
ALTER TABLE runs ADD COLUMN engine_version text;
ALTER TABLE runs ADD COLUMN summary text;
ALTER TABLE datasets ADD COLUMN quality text;

CREATE TABLE run_trades (
  run_id bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  size double precision NOT NULL,
  entry_bar integer NOT NULL,
  exit_bar integer,
  entry_ts bigint NOT NULL,
  exit_ts bigint,
  entry_price double precision NOT NULL,
  exit_price double precision,
  pnl double precision NOT NULL,
  return_pct double precision NOT NULL,
  commissions double precision NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE run_equity (
  run_id bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  chunk integer NOT NULL,
  points integer NOT NULL CHECK (points > 0),
  peak_before double precision NOT NULL,
  data text NOT NULL,
  PRIMARY KEY (run_id, chunk)
);

CREATE TABLE run_trials (
  run_id bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  strategy text NOT NULL,
  params text NOT NULL,
  score double precision,
  return_pct double precision,
  blocks text NOT NULL,
  PRIMARY KEY (run_id, seq)
);
