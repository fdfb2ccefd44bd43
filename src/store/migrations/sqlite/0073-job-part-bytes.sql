-- Job inputs and answers stored as bytes, as pin content is (0008): an answer arrives as the UTF-8 bytes the mill
-- wrote and is sent as they are, never decoded into text to be stored nor encoded again to be sent. One table shape
-- for both, written and read by one helper (src/store/byte-parts.ts).
CREATE TABLE job_parts_bytes (
  job_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('input', 'result')),
  seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,     -- epoch ms; before the bytes, so reading it never touches their pages
  content BLOB NOT NULL,           -- these bytes of the JSON text; the parts in seq order joined are the whole
  PRIMARY KEY (job_id, kind, seq)
);
INSERT INTO job_parts_bytes (job_id, kind, seq, created_at, content)
  SELECT job_id, kind, seq, created_at, CAST(text AS BLOB) FROM job_parts;
DROP TABLE job_parts;
ALTER TABLE job_parts_bytes RENAME TO job_parts;
