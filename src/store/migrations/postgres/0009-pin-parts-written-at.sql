-- PostgreSQL translation of sqlite/0009-pin-parts-written-at.sql (large bytea values live out of line, so the column
-- is added, not the table made again).
-- When each pin part was written (epoch ms), so parts whose row never came (a crash between the parts and the row) can
-- be told from a pin being written now, and swept once old enough. Parts already there read as written at 0.
ALTER TABLE pin_parts ADD COLUMN created_at bigint NOT NULL DEFAULT 0;
