-- PostgreSQL translation of sqlite/0070-run-owners.sql.
-- Runs have owners (issue #27): a run is stored once per inputs digest, and every principal that stored it owns it
-- (`admin`, `grant:<subject>`, `client:<address>`; runs from before belong to `host`, readable by admins only). A run
-- goes when its last owner deletes it.
CREATE TABLE run_owners (
  run_id bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  owner text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, owner)
);
-- A principal's runs, newest first (its lists and its command center).
CREATE INDEX run_owners_by_owner ON run_owners (owner, run_id);
INSERT INTO run_owners (run_id, owner, created_at) SELECT id, 'host', created_at FROM runs;
