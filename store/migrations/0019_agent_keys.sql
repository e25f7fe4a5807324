-- Agent keys (RFC-0008 §10.1, §11.2, §11.6 item 4, §11.8): what an agent
-- calls /mcp with. A person mints one within their role; an agent-task
-- automation has its own (automation_id, unique: one key, one automation).
-- Only a SHA-256 of the secret is kept; the secret is shown once.
--
--   mode          the key's mode cap: plan | manual | edits | auto (never bypass)
--   scopes        JSON array, chosen within the owner's role; narrowed to the
--                 owner's current role on every call (ADR-0018)
--   owner_id      the person who minted it; the key acts for them
--   automation_id the automation whose own key it is; NULL for a person's key
--   revoked_at    set once: the key authenticates nothing from then on
CREATE TABLE agent_keys (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  name TEXT NOT NULL,
  owner_id TEXT NOT NULL REFERENCES users (id),
  mode TEXT NOT NULL,
  scopes TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  automation_id TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT
);
CREATE INDEX agent_keys_site ON agent_keys (site_id, owner_id, created_at);
-- One live key per automation: a new one (a take-over, §11.8) revokes the old.
CREATE UNIQUE INDEX agent_keys_automation ON agent_keys (automation_id) WHERE automation_id IS NOT NULL AND revoked_at IS NULL;
