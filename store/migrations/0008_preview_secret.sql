-- The key that signs preview links (RFC-0008 §7.3): one per database, made
-- by the first process that needs it (32 random bytes from crypto/rand) and
-- never shown. Deleting the row revokes every preview link at once.
CREATE TABLE preview_secret (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret BLOB NOT NULL
);
