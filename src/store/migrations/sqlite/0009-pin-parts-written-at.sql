-- When each pin part was written (epoch ms), so parts whose row never came (a crash between the parts and the row) can
-- be told from a pin being written now, and swept once old enough. The table is made again to hold the time before the
-- bytes: a column after a 768 KiB blob is read through its overflow pages. Parts already there read as written at 0.
CREATE TABLE pin_parts_written (
  digest TEXT NOT NULL,
  seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,     -- epoch ms of the latest write of these bytes; before them, off their pages
  content BLOB NOT NULL,           -- these bytes of the pin; the parts in seq order joined are the whole
  PRIMARY KEY (digest, seq)
);
INSERT INTO pin_parts_written (digest, seq, created_at, content) SELECT digest, seq, 0, content FROM pin_parts;
DROP TABLE pin_parts;
ALTER TABLE pin_parts_written RENAME TO pin_parts;
