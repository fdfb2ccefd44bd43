-- PostgreSQL translation of sqlite/0023-job-effects.sql.
-- A job's effect (what its run stored, such as "run:12"): an identical submission shares the job only while its
-- effect still stands (src/jobs/queue-core.ts), so a deleted run is computed again instead of named.
ALTER TABLE jobs ADD COLUMN effect TEXT;
