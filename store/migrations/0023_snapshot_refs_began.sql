-- What changed between two snapshots of a site's line (Store.LiveChanges,
-- the public site's next model built from the one before): the rows that
-- began after the older one, by range, as snapshot_refs_ended finds the
-- rows that ended.
CREATE INDEX snapshot_refs_began ON snapshot_refs (site_id, from_seq);
