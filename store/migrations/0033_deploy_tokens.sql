-- Deploy tokens (issue 16): an operator's tools' secrets, no person's.
-- They reach only the operator routes (/api/admin/…), never a site.
CREATE TABLE deploy_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
