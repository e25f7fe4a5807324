-- The content list at a newsroom's size (issue 15). Both read columns
-- stored after the body, which the table would read whole for each node.
-- Its pages, newest edit first: walked in order, a page stops after its
-- rows instead of sorting the whole site.
CREATE INDEX nodes_edited ON nodes (site_id, updated_at DESC, id) WHERE deleted_at IS NULL;
-- Its count of changes waiting to go live (PendingCount) compares every
-- node's version with the live one; the body is read only for the nodes
-- not live.
CREATE INDEX nodes_versions ON nodes (site_id, id, rev, hash) WHERE deleted_at IS NULL;
