-- Roles are per site (issue 15, RFC §10.2): a person may be an Editor on one
-- site and a Contributor on another. A membership is a person's role on one
-- site; without one the person has no access to that site at all.
-- Everybody keeps, on every site there is, the role they held until now, and
-- the global role goes, so there is one place a role is read from.
CREATE TABLE memberships (
  site_id TEXT NOT NULL REFERENCES sites (id),
  user_id TEXT NOT NULL REFERENCES users (id),
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id, site_id);

INSERT INTO memberships (site_id, user_id, role, created_at)
  SELECT s.id, u.id, u.role, u.created_at FROM sites s CROSS JOIN users u;

ALTER TABLE users DROP COLUMN role;
