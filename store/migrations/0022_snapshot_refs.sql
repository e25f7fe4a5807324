-- Snapshots that share structure (issue 14, DESIGN "Content graph"): a
-- publish writes the refs it changes, not a copy of every live ref.
--
-- A site's snapshots form one line: every new snapshot becomes the live one
-- (the guarded flip of sites.published_snapshot_id), and Undo makes a new
-- snapshot rather than going back. So each snapshot gets a number in its
-- site's line (seq), and snapshot_refs holds one row per node version per
-- stretch of that line in which it was live: from_seq is the snapshot that
-- set it, until_seq the one that replaced or removed it (NULL: live now).
-- Snapshot S holds the rows with from_seq <= S.seq < until_seq; the live
-- head is the rows with until_seq IS NULL, one indexed range.
--
-- Snapshots made before this migration keep their full refs JSON and are
-- read from it; each site's live one moves into rows (its refs set to
-- NULL), so every later snapshot is its parent plus its changes.

CREATE TABLE snapshots_v2 (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  seq INTEGER NOT NULL,            -- place in the site's line, from 1
  parent_id TEXT,
  reason TEXT NOT NULL,            -- publish | scheduled | rollback | manual
  label TEXT,
  actor TEXT NOT NULL,             -- JSON Actor
  refs TEXT,                       -- JSON [{id, kind, rev, hash}] of a snapshot older than 0022; NULL: in snapshot_refs
  changes TEXT,                    -- JSON {set: [ref], removed: [id]}: what it changed in its parent
  metadata TEXT,
  created_at TEXT NOT NULL
);
INSERT INTO snapshots_v2 (id, site_id, seq, parent_id, reason, label, actor, refs, metadata, created_at)
  SELECT id, site_id, row_number() OVER (PARTITION BY site_id ORDER BY rowid), parent_id, reason, label, actor, refs, metadata, created_at
  FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_v2 RENAME TO snapshots;
CREATE INDEX snapshots_site ON snapshots (site_id, created_at);
CREATE UNIQUE INDEX snapshots_seq ON snapshots (site_id, seq);

CREATE TABLE snapshot_refs (
  site_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  rev INTEGER NOT NULL,
  hash TEXT NOT NULL,
  from_seq INTEGER NOT NULL,
  until_seq INTEGER,
  PRIMARY KEY (site_id, node_id, from_seq)
) WITHOUT ROWID;
-- The live head, by node and covering (what a run and the public site
-- read), and the rows that ended, by when (older snapshots).
CREATE INDEX snapshot_refs_head ON snapshot_refs (site_id, node_id, kind, rev, hash) WHERE until_seq IS NULL;
CREATE INDEX snapshot_refs_ended ON snapshot_refs (site_id, until_seq) WHERE until_seq IS NOT NULL;

INSERT INTO snapshot_refs (site_id, node_id, kind, rev, hash, from_seq)
  SELECT sn.site_id, json_extract(j.value, '$.id'), json_extract(j.value, '$.kind'),
    json_extract(j.value, '$.rev'), json_extract(j.value, '$.hash'), sn.seq
  FROM sites st JOIN snapshots sn ON sn.id = st.published_snapshot_id, json_each(sn.refs) j;
UPDATE snapshots SET refs = NULL WHERE id IN (SELECT published_snapshot_id FROM sites);

-- A snapshot and its rows are written by one statement: inserting a
-- snapshot with its changes ends the rows of the nodes it replaces or
-- removes and starts those it sets. No code path can write one without the
-- other, and a publish stays a fixed number of statements.
CREATE TRIGGER snapshot_changes AFTER INSERT ON snapshots WHEN NEW.changes IS NOT NULL
BEGIN
  UPDATE snapshot_refs SET until_seq = NEW.seq
  WHERE site_id = NEW.site_id AND until_seq IS NULL AND node_id IN (
    SELECT json_extract(value, '$.id') FROM json_each(NEW.changes, '$.set')
    UNION ALL SELECT value FROM json_each(NEW.changes, '$.removed'));
  INSERT INTO snapshot_refs (site_id, node_id, kind, rev, hash, from_seq)
  SELECT NEW.site_id, json_extract(value, '$.id'), json_extract(value, '$.kind'),
    json_extract(value, '$.rev'), json_extract(value, '$.hash'), NEW.seq
  FROM json_each(NEW.changes, '$.set');
END;
