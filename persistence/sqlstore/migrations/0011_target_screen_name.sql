-- B2B (dt): a target's screen_name as the customer typed it (issue 10, item 8);
-- handle stays its lowercase key. Empty: the key is shown.

ALTER TABLE targets ADD COLUMN screen_name TEXT NOT NULL DEFAULT '';
