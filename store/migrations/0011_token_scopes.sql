-- A personal access token carries the scopes chosen when it was made (a JSON
-- array), narrowed to its person's current role on every call. NULL, for
-- tokens made before, is the person's role: existing tokens are not
-- narrowed or widened.
ALTER TABLE tokens ADD COLUMN scopes TEXT;
