-- The site's History page (issue 15) reads a site's audit rows newest
-- first, a page at a time: by site and id, not by a read of every row.
CREATE INDEX audit_site ON audit (site_id, id) WHERE site_id IS NOT NULL;
