-- Run retention (issue #13): pruning old runs first unlinks the signals that point at them, found by this index.
CREATE INDEX signals_by_run ON signals (run_id) WHERE run_id IS NOT NULL;
