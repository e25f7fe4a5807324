-- A person's sessions (issue 15, Your account): which browser on which
-- system, from when, last seen when, so one can be signed out from
-- another. The session itself stays in scs's sessions table; its data
-- holds this row's id. A row lives at the account's session epoch: a
-- password change or "sign out everywhere else" ends the others with it.
CREATE TABLE user_sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  epoch INTEGER NOT NULL,
  browser TEXT NOT NULL,
  os TEXT NOT NULL,
  created_at TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE INDEX user_sessions_user ON user_sessions (user_id, seen_at);
