-- A password reset revokes every agent key the person owns, on every site
-- (issue 36): read by owner, not site by site. Only the live keys, the
-- ones a reset can still revoke. One spelling for both engines.
CREATE INDEX agent_keys_owner ON agent_keys (owner_id) WHERE revoked_at IS NULL;
