package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// WaitingTranscript is a transcript that waits for the runner: pending, or
// running when the run was cut short (a stop, a crash).
type WaitingTranscript struct {
	RecordingID string
	Status      string
	UpdatedAt   time.Time
}

// WaitingTranscripts lists at most limit waiting transcripts, oldest first
// (by UpdatedAt, then recording id), after the one given (the zero value:
// from the first). The runner's scan reads them a page at a time through
// the partial index transcripts_waiting (0024), which holds only these:
// it read every recording and each one's transcript before. limit 0 means
// 100.
func (db *DB) WaitingTranscripts(ctx context.Context, after WaitingTranscript, limit int) ([]WaitingTranscript, error) {
	if limit <= 0 {
		limit = 100
	}
	rd, err := db.reader()
	if err != nil {
		return nil, fmt.Errorf("waiting transcripts: %w", err)
	}
	rows, err := rd.QueryContext(ctx, waitingTranscriptsSQL, ts(after.UpdatedAt), after.RecordingID, limit)
	if err != nil {
		return nil, fmt.Errorf("waiting transcripts: %w", err)
	}
	defer rows.Close()
	var out []WaitingTranscript
	for rows.Next() {
		var w WaitingTranscript
		var at int64
		if err := rows.Scan(&w.RecordingID, &w.Status, &at); err != nil {
			return nil, fmt.Errorf("waiting transcripts: %w", err)
		}
		w.UpdatedAt = fromTS(at)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("waiting transcripts: %w", err)
	}
	return out, nil
}

// waitingTranscriptsSQL's status term is the index's own, so SQLite walks
// transcripts_waiting in order (store/transcripts_waiting_test.go checks
// the plan).
const waitingTranscriptsSQL = `SELECT recording_id, status, updated_at FROM transcripts
WHERE status IN ('pending', 'running') AND (updated_at, recording_id) > (?, ?)
ORDER BY updated_at, recording_id LIMIT ?`

// ClaimTranscript marks the transcript of a recording running for the
// runner with the recogniser given, only when it waits (pending, running
// cut short) or has none yet, in one statement; false when it is done or
// failed meanwhile (another run made it, or it failed and nobody asked
// again): the runner then leaves it. A transcript listed by a scan and
// queued by "Try again" at the same moment is so run once, not twice.
// ErrNotFound when the recording does not exist.
func (db *DB) ClaimTranscript(ctx context.Context, recordingID, recogniser string) (bool, error) {
	var claimed bool
	err := db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&recordingRow{}).Where("id = ?", recordingID).Count(&n).Error; err != nil {
			return fmt.Errorf("claim transcript of %q: %w", recordingID, err)
		}
		if n == 0 {
			return fmt.Errorf("claim transcript of recording %q: %w", recordingID, ErrNotFound)
		}
		res := tx.Exec(`INSERT INTO transcripts (recording_id, status, error, recogniser, segments, updated_at)
VALUES (?, 'running', '', ?, '[]', ?)
ON CONFLICT (recording_id) DO UPDATE SET status = 'running', error = '', recogniser = excluded.recogniser,
segments = '[]', updated_at = excluded.updated_at
WHERE transcripts.status IN ('pending', 'running')`, recordingID, recogniser, ts(time.Now()))
		if res.Error != nil {
			return fmt.Errorf("claim transcript of %q: %w", recordingID, res.Error)
		}
		claimed = res.RowsAffected == 1
		return nil
	})
	return claimed, err
}
