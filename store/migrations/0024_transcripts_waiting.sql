-- 0024: the transcripts that wait (pending, or running when a stop or a
-- crash cut their run short), oldest first, for the runner's scan
-- (WaitingTranscripts). Without it the runner read the 10,000 newest
-- recordings and asked for each one's transcript, a query per recording,
-- at every start and every wake (a full queue, a recogniser set). As a
-- partial index it holds only those that wait, so done and failed
-- transcripts, nearly all of them, never touch it.
CREATE INDEX transcripts_waiting ON transcripts (updated_at, recording_id) WHERE status IN ('pending', 'running');
