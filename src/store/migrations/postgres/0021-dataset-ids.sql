-- PostgreSQL counterpart of sqlite/0021-dataset-ids.sql: an identity column's sequence never goes back, so dataset ids
-- are never reused here already; this records it where a reader of the schema looks.
COMMENT ON COLUMN datasets.id IS 'identity: never reused after a delete (a request naming an id never reads another dataset)';
