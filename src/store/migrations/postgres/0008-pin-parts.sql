-- PostgreSQL translation of sqlite/0008-pin-parts.sql.
-- Pin content in parts of at most 256 Ki characters' UTF-8 bytes, off the pins row: a 15 MB pin was one INSERT of
-- 48–260 ms, and a page of the listing read through rows holding whole blobs. Parts are written before the row, so a
-- row is only ever seen with all its parts; parts whose row never came (a crash between) are the same bytes the next
-- pin of that content writes.
CREATE TABLE pin_parts (
  digest text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  content bytea NOT NULL,          -- these bytes of the pin; the parts in seq order joined are the whole
  PRIMARY KEY (digest, seq)
);
INSERT INTO pin_parts (digest, seq, content) SELECT digest, 0, content FROM pins;
ALTER TABLE pins DROP COLUMN content;
