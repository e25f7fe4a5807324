-- json_each as PostgreSQL can inline it into the query that calls it. A
-- STRICT set-returning SQL function is never inlined: each call ran its
-- body as a query of its own (0.2–0.4 ms, a third of a release's address
-- check). Without STRICT a NULL document still gives no rows: jsonb_typeof
-- of NULL matches neither branch.
CREATE OR REPLACE FUNCTION json_each(doc text) RETURNS TABLE (key text, value text)
LANGUAGE sql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE AS $$
  SELECT (a.n - 1)::text, a.e #>> '{}'
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc::jsonb) = 'array' THEN doc::jsonb ELSE '[]' END) WITH ORDINALITY AS a (e, n)
  UNION ALL
  SELECT o.k, o.e #>> '{}'
  FROM jsonb_each(CASE WHEN jsonb_typeof(doc::jsonb) = 'object' THEN doc::jsonb ELSE '{}' END) AS o (k, e)
$$;

CREATE OR REPLACE FUNCTION json_each(doc text, path text) RETURNS TABLE (key text, value text)
LANGUAGE sql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE AS $$
  SELECT * FROM json_each((doc::jsonb #> json_path(path))::text)
$$;

CREATE OR REPLACE FUNCTION json_each(doc json) RETURNS TABLE (key text, value text)
LANGUAGE sql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE AS $$
  SELECT * FROM json_each(doc::text)
$$;
