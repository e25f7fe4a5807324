-- The store's probe of free space (migrations/0037_storage_probe.sql),
-- with PostgreSQL's type for bytes.
CREATE TABLE storage_probe (
  id BIGINT PRIMARY KEY,
  filler BYTEA NOT NULL
);
