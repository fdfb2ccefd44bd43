-- Every job has an owner (the principal that submitted it: `admin`, `grant:<subject>` or `client:<address>`; jobs
-- from before have `host`, readable by admins only). Idempotency keys are namespaced per owner. A job whose run
-- wrote its effects (a research run) is sealed in the same transaction: a cancel can no longer win over it.
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT 'host';
ALTER TABLE jobs ADD COLUMN sealed_at INTEGER;
DROP INDEX jobs_idempotency_key;
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (surface, owner, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- The per-owner share of the queue counts an owner's unfinished jobs.
CREATE INDEX jobs_owner_active ON jobs (owner, state) WHERE state IN ('queued', 'running');
