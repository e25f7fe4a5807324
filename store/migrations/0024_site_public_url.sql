-- A site's public base URL (issue 15: set in the first-run setup, or by
-- `studio site add`): its absolute links are built from it, never from a
-- request's Host. Empty: the --public-url of `studio serve`.
ALTER TABLE sites ADD COLUMN public_url TEXT NOT NULL DEFAULT '';
