-- Invitations to a site (issue 15): an Owner or Administrator invites an
-- email address with a role; the link, shown once, works once and for
-- seven days. Only a SHA-256 of its secret is kept.
--   created_by   JSON Actor
--   accepted_at  set when the link is used; revoked_at when it is revoked
--                or replaced by a newer invitation of the same email
CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  email TEXT NOT NULL COLLATE NOCASE,
  role TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT
);
CREATE INDEX invitations_site ON invitations (site_id, created_at);
