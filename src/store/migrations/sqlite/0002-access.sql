-- Bearer grants: only the SHA-256 of a token is stored; the token itself is shown once.
CREATE TABLE grants (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  scopes TEXT NOT NULL,           -- JSON array of scope names
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
);

-- Content-addressed pins: digest = 'sha256:' || hex(sha256(content bytes)).
CREATE TABLE pins (
  digest TEXT PRIMARY KEY,
  content BLOB NOT NULL,
  media_type TEXT NOT NULL,       -- 'text/plain' or 'application/json'
  label TEXT,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
