-- The store's probe of free space (issue 36, /health on a full disk): a
-- write that failed for lack of space is noted, and the note ends when a
-- row of 64 KiB can be written here (and deleted in the same transaction)
-- again. The table is empty between probes.
CREATE TABLE storage_probe (
  id INTEGER PRIMARY KEY,
  filler BLOB NOT NULL
);
