-- Who created each node (RFC §10.1–10.2): the own-level scopes
-- (content:write:own, schedules:write:own, releases:publish:own) reach only
-- a person's own nodes. The author is set when the node is created and kept
-- across its versions. Existing nodes get the person who saved their first
-- version, or else the site's first owner.
ALTER TABLE nodes ADD COLUMN author_id TEXT NOT NULL DEFAULT '';
UPDATE nodes SET author_id = COALESCE(
  (SELECT v.saved_by FROM node_versions v JOIN users u ON u.id = v.saved_by
    WHERE v.node_id = nodes.id ORDER BY v.rev LIMIT 1),
  (SELECT id FROM users WHERE role = 'owner' ORDER BY created_at, id LIMIT 1),
  '');
