-- 0007: whether a call's media was encrypted (SRTP), for the history's
-- "secure" field. Calls from before are taken as not encrypted.
ALTER TABLE history ADD COLUMN secure INTEGER NOT NULL DEFAULT 0;
