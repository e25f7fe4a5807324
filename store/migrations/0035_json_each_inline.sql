-- PostgreSQL only (migrations/postgres/0035_json_each_inline.sql): SQLite's
-- json_each is its own. A version both engines count.
SELECT 1;
