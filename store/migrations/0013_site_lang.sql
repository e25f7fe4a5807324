-- A site speaks one language on its public site (html lang, dates, the
-- words of its menu and pages) and is the language new pages and articles
-- are written in unless their editor names one. The sites that exist
-- today are the demo's, and the demo is Turkish: that is the default.
ALTER TABLE sites ADD COLUMN lang TEXT NOT NULL DEFAULT 'tr';
