package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type recordingRow struct {
	ID        string  `gorm:"column:id;primaryKey"`
	CallID    string  `gorm:"column:call_id"`
	SeanceID  string  `gorm:"column:seance_id"`
	StartedAt int64   `gorm:"column:started_at"`
	DurationS float64 `gorm:"column:duration_s"`
	SizeBytes int64   `gorm:"column:size_bytes"`
	Codec     string  `gorm:"column:codec"`
	Path      string  `gorm:"column:path"`
	Number    string  `gorm:"column:number"`
	Name      string  `gorm:"column:name"`
}

func (recordingRow) TableName() string { return "recordings" }

func recordingRowOf(r Recording) recordingRow {
	return recordingRow{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, StartedAt: ts(r.StartedAt),
		DurationS: r.DurationS, SizeBytes: r.SizeBytes, Codec: r.Codec, Path: r.Path, Number: r.Number, Name: r.Name}
}

func (r recordingRow) recording() Recording {
	return Recording{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, StartedAt: fromTS(r.StartedAt),
		DurationS: r.DurationS, SizeBytes: r.SizeBytes, Codec: r.Codec, Path: r.Path, Number: r.Number, Name: r.Name}
}

type transcriptRow struct {
	RecordingID string `gorm:"column:recording_id;primaryKey"`
	Status      string `gorm:"column:status"`
	Error       string `gorm:"column:error"`
	Recogniser  string `gorm:"column:recogniser"`
	Segments    string `gorm:"column:segments"`
	UpdatedAt   int64  `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (transcriptRow) TableName() string { return "transcripts" }

// CreateRecording stores a recording under a new UUID (unless r.ID is set)
// and returns it. A zero StartedAt is now.
func (db *DB) CreateRecording(ctx context.Context, r Recording) (Recording, error) {
	if r.ID == "" {
		r.ID = uuid.NewString()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now().UTC()
	}
	row := recordingRowOf(r)
	if err := db.g.WithContext(ctx).Create(&row).Error; err != nil {
		return Recording{}, fmt.Errorf("create recording: %w", err)
	}
	return row.recording(), nil
}

// UpdateRecording replaces every field of an existing recording (when it ends:
// duration and size).
func (db *DB) UpdateRecording(ctx context.Context, r Recording) error {
	row := recordingRowOf(r)
	res := db.g.WithContext(ctx).Model(&recordingRow{}).Where("id = ?", r.ID).Select("*").Omit("id").Updates(&row)
	if res.Error != nil {
		return fmt.Errorf("update recording %q: %w", r.ID, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("update recording %q: %w", r.ID, ErrNotFound)
	}
	return nil
}

// ListRecordings returns recordings newest first; limit 0 means 100. Newest
// is the last made (rowid: each row is added after the others), not the
// latest wall-clock start: after the clock stepped back (NTP correcting a
// clock that ran ahead, the person setting it) a new recording started
// "before" those of the hour before and was listed below them, off the
// recordings page (200) of a busy phone; its transcript, if the phone
// stopped meanwhile, was not resumed when it fell beyond the 10,000 that
// resume looks at.
func (db *DB) ListRecordings(ctx context.Context, limit int) ([]Recording, error) {
	if limit <= 0 {
		limit = 100
	}
	var rows []recordingRow
	if err := db.g.WithContext(ctx).Order("rowid DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list recordings: %w", err)
	}
	out := make([]Recording, len(rows))
	for i, r := range rows {
		out[i] = r.recording()
	}
	return out, nil
}

// GetRecording returns one recording; ErrNotFound when unknown.
func (db *DB) GetRecording(ctx context.Context, id string) (Recording, error) {
	var r recordingRow
	if err := db.g.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return Recording{}, notFound(err, "recording", id)
	}
	return r.recording(), nil
}

// DeleteRecording removes a recording's row and its transcript, and unlinks
// it from history. The audio file is the caller's to remove.
func (db *DB) DeleteRecording(ctx context.Context, id string) error {
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ?", id).Delete(&recordingRow{})
		if res.Error != nil {
			return fmt.Errorf("delete recording %q: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("delete recording %q: %w", id, ErrNotFound)
		}
		if err := tx.Model(&historyRow{}).Where("recording = ?", id).Update("recording", "").Error; err != nil {
			return fmt.Errorf("delete recording %q: %w", id, err)
		}
		return nil
	})
}

// SaveTranscript writes (or replaces) the transcript of a recording;
// ErrNotFound when the recording does not exist. A zero UpdatedAt is now.
func (db *DB) SaveTranscript(ctx context.Context, t Transcript) error {
	segs := t.Segments
	if segs == nil {
		segs = []TranscriptSegment{}
	}
	b, err := json.Marshal(segs)
	if err != nil {
		return fmt.Errorf("transcript of %q: %w", t.RecordingID, err)
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = time.Now()
	}
	row := transcriptRow{RecordingID: t.RecordingID, Status: t.Status, Error: t.Error,
		Recogniser: t.Recogniser, Segments: string(b), UpdatedAt: ts(t.UpdatedAt)}
	if row.Status == "" {
		row.Status = "pending"
	}
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&recordingRow{}).Where("id = ?", t.RecordingID).Count(&n).Error; err != nil {
			return fmt.Errorf("transcript of %q: %w", t.RecordingID, err)
		}
		if n == 0 {
			return fmt.Errorf("transcript of recording %q: %w", t.RecordingID, ErrNotFound)
		}
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
			return fmt.Errorf("transcript of %q: %w", t.RecordingID, err)
		}
		return nil
	})
}

// GetTranscript returns the transcript of a recording; ErrNotFound when none.
func (db *DB) GetTranscript(ctx context.Context, recordingID string) (Transcript, error) {
	var r transcriptRow
	if err := db.g.WithContext(ctx).Where("recording_id = ?", recordingID).Take(&r).Error; err != nil {
		return Transcript{}, notFound(err, "transcript of recording", recordingID)
	}
	t := Transcript{RecordingID: r.RecordingID, Status: r.Status, Error: r.Error,
		Recogniser: r.Recogniser, UpdatedAt: fromTS(r.UpdatedAt)}
	if err := json.Unmarshal([]byte(r.Segments), &t.Segments); err != nil {
		return Transcript{}, fmt.Errorf("transcript of %q: %w", recordingID, errors.Join(ErrInvalid, err))
	}
	return t, nil
}
