-- A run's results (trades, curve chunks, trials) are written after its row, a batch at a time: they count as stored
-- only once whole. While `results_writer` is set (a writer's claim, renewed at `results_claimed_at`, epoch ms) they
-- are not read; the writer clears it last. A claim older than its lease is abandoned (a crash): a sweep takes it over,
-- deletes the partial rows and writes them again from the run's stored request (a repeat of the run may too).
ALTER TABLE runs ADD COLUMN results_writer TEXT;
ALTER TABLE runs ADD COLUMN results_claimed_at INTEGER;
CREATE INDEX runs_results_unfinished ON runs (results_claimed_at) WHERE results_writer IS NOT NULL;
