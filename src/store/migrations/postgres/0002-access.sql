-- PostgreSQL translation of sqlite/0002-access.sql.

-- Bearer grants: only the SHA-256 of a token is stored; the token itself is shown once.
CREATE TABLE grants (
  id text COLLATE "C" PRIMARY KEY,
  subject text COLLATE "C" NOT NULL,
  scopes text NOT NULL,           -- JSON array of scope names
  token_hash text COLLATE "C" NOT NULL UNIQUE,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  revoked_at text COLLATE "C"
);

-- Content-addressed pins: digest = 'sha256:' || hex(sha256(content bytes)).
CREATE TABLE pins (
  digest text COLLATE "C" PRIMARY KEY,
  content bytea NOT NULL,
  media_type text COLLATE "C" NOT NULL,       -- 'text/plain' or 'application/json'
  label text COLLATE "C",
  size bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
