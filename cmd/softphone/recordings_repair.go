package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// repairRecordings completes the recordings a crash cut short and queues a
// transcript for each that has none yet. One whose transcript a stop left
// pending or a kill left running is resumed by the transcript runner
// itself (sipua/transcripts.go, first thing in Serve); queued here too, it
// was transcribed twice, the recogniser run again for the whole call. One
// already transcribed (done, or failed) keeps its transcript. A recording's
// row keeps size 0 though its transcript ran when the row's update at the
// recording's end failed (a full disk, a busy database).
func repairRecordings(ctx context.Context, db *store.DB, home string, transcripts *sipua.Transcripts, log *slog.Logger) {
	fixed, err := db.RepairRecordings(ctx, home)
	if err != nil {
		log.Warn("recordings cut short by a crash not completed", "err", err)
	}
	if len(fixed) == 0 {
		return
	}
	log.Info("recordings cut short by a crash completed", "recordings", len(fixed))
	for _, r := range fixed {
		if _, err := db.GetTranscript(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
			continue // has one (resumed by the runner when pending or running), or the database fails
		}
		if err := transcripts.Enqueue(r.ID); err != nil {
			log.Warn("no transcript for recording", "recording", r.ID, "err", err)
		}
	}
}
