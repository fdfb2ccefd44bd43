-- PostgreSQL translation of sqlite/0001-core.sql. Text columns compare byte-wise (COLLATE "C") as in SQLite, so keyset
-- pages and sorted lists come out in the same order on both databases whatever the server's locale.

-- Host-level key/value facts (first start time, seeds applied).
CREATE TABLE meta (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
