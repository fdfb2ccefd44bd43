-- Job inputs and answers in parts of at most 256 Ki characters, off the jobs row: a 14 MB input was one 55 ms INSERT,
-- and every state change rewrote the whole row with it. Parts are written before the row (input) or its final UPDATE
-- (result); parts whose job row never came (a crash between) are removed by the purge after an hour, found by a
-- walk of the primary key a slice at a time.
CREATE TABLE job_parts (
  job_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('input', 'result')),
  seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,     -- epoch ms; before the text, so reading it never touches the text's pages
  text TEXT NOT NULL,              -- this part of the JSON text; the parts in seq order joined are the whole
  PRIMARY KEY (job_id, kind, seq)
);
INSERT INTO job_parts (job_id, kind, seq, created_at, text)
  SELECT id, 'input', 0, created_at, input FROM jobs WHERE input IS NOT NULL;
INSERT INTO job_parts (job_id, kind, seq, created_at, text)
  SELECT id, 'result', 0, COALESCE(finished_at, created_at), result FROM jobs WHERE result IS NOT NULL;
ALTER TABLE jobs DROP COLUMN input;
ALTER TABLE jobs DROP COLUMN result;
