package audio

import (
	"context"
	"time"
)

// RecordingInfo is one recording's row, saved through a RecordingSink.
type RecordingInfo struct {
	ID, CallID, SeanceID string
	Path                 string
	Started              time.Time
	Duration             time.Duration
	Size                 int64
	Codec                string
}

// RecordingSink keeps the rows of recordings (the wiring adapts store.DB).
type RecordingSink interface {
	CreateRecording(ctx context.Context, r RecordingInfo) error
	UpdateRecording(ctx context.Context, r RecordingInfo) error
}

type recorder struct {
	local, remote *fifo
}

func (r *recorder) stop() {}
