-- OAuth for MCP connectors (issue 38): clients that registered themselves
-- (RFC 7591), and the authorization codes a person's consent made, kept
-- by their hash until they expire. Exchanging a code mints an agent key;
-- key_id names it, so a code used twice revokes it. One spelling for both
-- engines.
CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE oauth_codes (
  hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES oauth_clients (id),
  site_id TEXT NOT NULL REFERENCES sites (id),
  user_id TEXT NOT NULL REFERENCES users (id),
  redirect_uri TEXT NOT NULL,
  challenge TEXT NOT NULL,
  mode TEXT NOT NULL,
  scopes TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  taken_at TEXT,
  key_id TEXT
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
