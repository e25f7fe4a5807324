-- Several sites (issue 15): the public site is chosen by the request's host
-- (each site's public URL), and one site may answer the hosts no site
-- claims. The oldest site does, as it answered every host until now; a
-- site made later does only when it is the first.
ALTER TABLE sites ADD COLUMN default_host INTEGER NOT NULL DEFAULT 0;
UPDATE sites SET default_host = 1 WHERE id = (SELECT id FROM sites ORDER BY created_at, id LIMIT 1);
