-- Addresses are unique per route namespace (a kind) across the working
-- copies and the live versions of a site's nodes: these two indexes let
-- the check on save, approval and run be one indexed query
-- (AddressHolders) instead of a read of every node. The expressions must
-- match the query's exactly for SQLite to use them.
CREATE INDEX nodes_address ON nodes (site_id, kind, json_extract(body, '$.slug')) WHERE deleted_at IS NULL;
CREATE INDEX node_versions_slug ON node_versions (json_extract(body, '$.slug'));
