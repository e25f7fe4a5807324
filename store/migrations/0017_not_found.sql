-- The public site's 404s per normalised path and UTC day (RFC §11.1,
-- broken-links' "top 404 paths"): no IP address, no cookie, no user agent,
-- only how often. A site keeps at most 1,000 paths a day (engine/jobs
-- MaxNotFoundPaths): past that, known paths still count and new ones are
-- dropped, so a scanner cannot grow the table.
CREATE TABLE site_not_found (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,               -- YYYY-MM-DD, UTC
  path TEXT NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (site_id, day, path)
);
