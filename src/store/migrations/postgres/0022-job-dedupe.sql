-- PostgreSQL translation of sqlite/0022-job-dedupe.sql.
-- Identical submissions of one owner share one job (its stored input and answer) while it is kept: found by this index.
CREATE INDEX jobs_owner_input ON jobs (owner, input_digest, n) WHERE purged_at IS NULL;
