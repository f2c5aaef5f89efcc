-- 0006: a contact can be watched (issue 19): its line (RFC 4235 dialog
-- event package) and presence are subscribed to through the account's PBX.
ALTER TABLE contacts ADD COLUMN watch INTEGER NOT NULL DEFAULT 0;
