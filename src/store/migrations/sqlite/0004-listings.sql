-- Read-back: keyset indexes for the paged lists (newest first by time, ties broken by the key), the runs of a dataset
-- (listed by dataset, checked before a dataset is deleted), and when each grant was last used.
ALTER TABLE grants ADD COLUMN last_used_at TEXT;
CREATE INDEX grants_by_created ON grants (created_at, id);
CREATE INDEX pins_by_created ON pins (created_at, digest);
CREATE INDEX runs_by_dataset ON runs (dataset_id, id);
CREATE INDEX signals_by_dataset ON signals (dataset_id, id);
CREATE INDEX orders_by_account ON orders (account_id, id);
CREATE INDEX cycles_by_account ON cycles (account_id, id);
