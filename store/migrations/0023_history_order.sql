-- 0023: the history's order is the order in which its calls were written,
-- not their wall-clock start. After the wall clock stepped back (NTP
-- correcting a clock that ran ahead, a VM restored, the person setting the
-- clock), a new call started "before" the calls of the hour before and was
-- listed below them, off the first page; newest first is the newest call
-- on top, whatever the clock said. seq numbers the entries as they are
-- written (history.go: one more than the highest); the entries from before
-- are numbered in the order of their start (and stamped anew in the same
-- statement: the rev trigger of 0012 would update each row a second time).
-- started_at and id stay in the indexes after it, so entries without a
-- number keep their order. It takes about 2 s for 100,000 entries, once.
--
-- history_seen.seq is the highest number when History was last seen, and
-- open_from the lowest of the calls still open then: a missed call written
-- after the look is new whatever the clock, one from open_from on if it
-- ended after the look (history_seen.go). A database from before keeps
-- judging its entries by their end (open_from 0).
ALTER TABLE history ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE history SET seq = o.n, rev = random() FROM (SELECT rowid AS r, row_number() OVER (ORDER BY started_at, id) AS n FROM history) AS o
    WHERE history.rowid = o.r;

DROP INDEX history_page;
CREATE INDEX history_page ON history (seq DESC, started_at DESC, id DESC, open, rev);
DROP INDEX history_page_missed;
CREATE INDEX history_page_missed ON history (seq DESC, started_at DESC, id DESC, open, rev) WHERE outcome = 'missed';
DROP INDEX history_page_declined;
CREATE INDEX history_page_declined ON history (seq DESC, started_at DESC, id DESC, open, rev) WHERE declined = 1;
DROP INDEX history_account_started;
CREATE INDEX history_account_started ON history (account_id, seq DESC, started_at DESC, id DESC);

ALTER TABLE history_seen ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE history_seen ADD COLUMN open_from INTEGER NOT NULL DEFAULT 0;
UPDATE history_seen SET seq = (SELECT coalesce(max(seq), 0) FROM history WHERE ended_at <= history_seen.at);
