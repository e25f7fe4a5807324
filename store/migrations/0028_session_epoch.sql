-- A person's sessions end together (issue 15, Your account): each session
-- keeps the epoch its account had when it signed in, and a session whose
-- epoch is not the account's is signed out. "Sign out everywhere else", a
-- password change and a password reset move the epoch on.
ALTER TABLE users ADD COLUMN session_epoch INTEGER NOT NULL DEFAULT 0;
