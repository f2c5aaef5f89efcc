package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// RetryTranscript makes a failed transcript of a recording pending again,
// for the recogniser given, in one statement; false when it is not failed
// (none yet, or pending, running or done: another "Try again" got there
// first, and that run must be neither set back nor made twice).
// ErrNotFound when the recording does not exist.
func (db *DB) RetryTranscript(ctx context.Context, recordingID, recogniser string) (bool, error) {
	var retried bool
	err := db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&recordingRow{}).Where("id = ?", recordingID).Count(&n).Error; err != nil {
			return fmt.Errorf("retry transcript of %q: %w", recordingID, err)
		}
		if n == 0 {
			return fmt.Errorf("retry transcript of recording %q: %w", recordingID, ErrNotFound)
		}
		res := tx.Exec(`UPDATE transcripts SET status = 'pending', error = '', recogniser = ?, segments = '[]', updated_at = ?
WHERE recording_id = ? AND status = 'failed'`, recogniser, ts(time.Now()), recordingID)
		if res.Error != nil {
			return fmt.Errorf("retry transcript of %q: %w", recordingID, res.Error)
		}
		retried = res.RowsAffected == 1
		return nil
	})
	return retried, err
}
