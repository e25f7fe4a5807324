-- One-time password reset links (issue 15): an Owner or Administrator makes
-- one for a member, shown once, good for 24 hours. Only a SHA-256 of its
-- secret is kept; used_at is set when it is used or replaced by a newer one.
CREATE TABLE password_resets (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX password_resets_user ON password_resets (user_id);
