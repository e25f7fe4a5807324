-- The dependency closure (RFC-0008 §6.1 step 2): an item the store added
-- because another item's target references it names that item here, so the
-- release can say why ("closureAdded": {nodeId, because}). NULL for the
-- items a person or an agent named.
ALTER TABLE release_items ADD COLUMN added_because TEXT;

-- Overlaps (§6.2, D15) look up the other releases that carry a node.
CREATE INDEX release_items_node ON release_items (node_id);
