-- Jobs: long work (heavy operations of both surfaces) as rows, so a restart neither loses nor repeats acknowledged work.
-- n orders the table (paging cursor); id is the public name. Times are epoch ms.
CREATE TABLE jobs (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  op TEXT NOT NULL,
  surface TEXT NOT NULL CHECK (surface IN ('caller', 'trading')),
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  input TEXT,                      -- JSON of the parsed input; NULL once purged
  input_digest TEXT NOT NULL,      -- sha256 of op + input: an Idempotency-Key replay must carry the same input
  idempotency_key TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,   -- runs started; a job interrupted on its second run ends failed
  progress TEXT,                   -- JSON of the last progress written at a state change
  result TEXT,                     -- JSON of the answer (succeeded); NULL once purged
  refuse TEXT,                     -- JSON refusal (failed, cancelled)
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  purged_at INTEGER
);
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (surface, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_state ON jobs (state, n);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
