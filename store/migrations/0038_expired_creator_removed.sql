-- An auto-approved release whose key was lost expired with reason
-- "key_lost", which release.schema.json (RFC §4.2) does not have: the
-- schema's word for it is creator_removed. Stored outcomes are rewritten;
-- audit rows stay as they were written.
UPDATE releases SET outcome = replace(outcome, '"reason":"key_lost"', '"reason":"creator_removed"')
WHERE outcome LIKE '%"reason":"key_lost"%';
