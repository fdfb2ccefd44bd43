-- Run ids are never reused: SQLite gives a new row the largest id + 1, so deleting (or pruning) the newest run handed
-- its id to the next run, and a client holding /api/v11/runs/{id} silently read another run. As for datasets (0021),
-- the highest id ever given is kept here (by the trigger, whatever inserts); a new run takes the next one.
CREATE TABLE run_ids (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  last INTEGER NOT NULL
);
INSERT INTO run_ids (one, last) SELECT 1, coalesce(max(id), 0) FROM runs;
CREATE TRIGGER runs_ids_never_reused AFTER INSERT ON runs
BEGIN
  UPDATE run_ids SET last = max(last, NEW.id) WHERE one = 1;
END;
