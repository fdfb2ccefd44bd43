-- Dataset ids are never reused: SQLite gives a new row the largest id + 1, so deleting the newest dataset handed its id
-- to the next import, and a job or client naming that id silently read other bars. The highest id ever given is kept
-- here (by the trigger, whatever inserts); an import takes the next one.
CREATE TABLE dataset_ids (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  last INTEGER NOT NULL
);
INSERT INTO dataset_ids (one, last) SELECT 1, coalesce(max(id), 0) FROM datasets;
CREATE TRIGGER datasets_ids_never_reused AFTER INSERT ON datasets
BEGIN
  UPDATE dataset_ids SET last = max(last, NEW.id) WHERE one = 1;
END;
