-- Personal access tokens for the JSON API. Only a SHA-256 of the secret is
-- kept; the secret is shown once, when the token is created.
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX tokens_user ON tokens (user_id, created_at);
