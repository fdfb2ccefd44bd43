-- PostgreSQL counterpart of sqlite/0072-run-ids.sql: the id's sequence never goes back, so run ids are never reused
-- here already; this records it where a reader of the schema looks.
COMMENT ON COLUMN runs.id IS 'never reused after a delete or a prune (a client holding a run''s URL never reads another run)';
