-- 0004: what a crash must not lose (issue 14).
-- alive_at: the last moment the phone knew an open call alive (its answer or
-- the heartbeat of live calls), so a call cut off by a crash is closed at
-- the next start with the talk time up to then.
ALTER TABLE history ADD COLUMN alive_at INTEGER NOT NULL DEFAULT 0;
-- The journal replay asks whether an event is in the outbox already.
CREATE INDEX outbox_delivery ON outbox (delivery_id);
