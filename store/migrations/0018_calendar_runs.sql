-- The calendar's past automation occurrences come from their runs (RFC
-- §15.3, issue 12): a range's runs are read on schedule_runs_site_at, and a
-- skipped run that stands for coalesced occurrences (§8.6) reaches from its
-- first missed occurrence to when it was recorded (ended_at), so a range
-- that starts inside a downtime finds it here without scanning the site's
-- older runs.
CREATE INDEX schedule_runs_skipped ON schedule_runs (site_id, ended_at) WHERE state = 'skipped';
