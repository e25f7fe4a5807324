-- Deleting a page or an entry keeps its row and versions (snapshots and
-- releases name them) and marks the working copy deleted: it is gone from
-- Studio, and the next publish leaves it out of the live site.
ALTER TABLE nodes ADD COLUMN deleted_at TEXT;
