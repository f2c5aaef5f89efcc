package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// NoteMax is the longest note of a history entry, in bytes (UTF-8). The
// API took a note as long as its body limit (64 KiB), and GET /history of
// 1,000 such entries, each '<' written as six bytes of JSON, came to about
// 384 MB; at 4000 bytes it is at most 24 MB. The page had this limit.
const NoteMax = 4000

// checkNote refuses a note over NoteMax (ErrInvalid).
func checkNote(note string) error {
	if len(note) > NoteMax {
		return fmt.Errorf("%w: a note is at most %d bytes, this one has %d", ErrInvalid, NoteMax, len(note))
	}
	return nil
}

// SetHistoryNote replaces the note of an entry.
func (db *DB) SetHistoryNote(ctx context.Context, id, note string) error {
	if err := checkNote(note); err != nil {
		return err
	}
	res := db.g.WithContext(ctx).Model(&historyRow{}).Where("id = ?", id).Update("note", note)
	if res.Error != nil {
		return fmt.Errorf("note of history entry %q: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("note of history entry %q: %w", id, ErrNotFound)
	}
	return nil
}

// SetHistoryTags replaces the taxonomy codes of an entry. A code that does not
// exist, or is retired and not already on the entry, gives ErrUnknownCode and
// changes nothing. (Retired codes already given stay, so editing an old call
// does not force dropping them.)
func (db *DB) SetHistoryTags(ctx context.Context, id string, codes []string) error {
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&historyRow{}).Where("id = ?", id).Count(&n).Error; err != nil {
			return fmt.Errorf("tags of history entry %q: %w", id, err)
		}
		if n == 0 {
			return fmt.Errorf("tags of history entry %q: %w", id, ErrNotFound)
		}
		var had []string
		if err := tx.Model(&historyTagRow{}).Where("history_id = ?", id).Pluck("code", &had).Error; err != nil {
			return fmt.Errorf("tags of history entry %q: %w", id, err)
		}
		if err := tx.Where("history_id = ?", id).Delete(&historyTagRow{}).Error; err != nil {
			return fmt.Errorf("tags of history entry %q: %w", id, err)
		}
		return writeTags(tx, id, codes, had)
	})
}

// EditHistory replaces an entry's note (when note is not nil) and its tags
// (when codes is not nil, as SetHistoryTags) in one transaction: all or
// nothing. A refused code, or a write the disk refuses, leaves both as they
// were; as two writes the tags could be kept and the note refused, and the
// caller, told the change failed, had half of it saved.
func (db *DB) EditHistory(ctx context.Context, id string, note *string, codes *[]string) error {
	if note != nil {
		if err := checkNote(*note); err != nil {
			return err
		}
	}
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&historyRow{}).Where("id = ?", id).Count(&n).Error; err != nil {
			return fmt.Errorf("history entry %q: %w", id, err)
		}
		if n == 0 {
			return fmt.Errorf("history entry %q: %w", id, ErrNotFound)
		}
		if codes != nil {
			var had []string
			if err := tx.Model(&historyTagRow{}).Where("history_id = ?", id).Pluck("code", &had).Error; err != nil {
				return fmt.Errorf("tags of history entry %q: %w", id, err)
			}
			if err := tx.Where("history_id = ?", id).Delete(&historyTagRow{}).Error; err != nil {
				return fmt.Errorf("tags of history entry %q: %w", id, err)
			}
			if err := writeTags(tx, id, *codes, had); err != nil {
				return err
			}
		}
		if note != nil {
			if err := tx.Model(&historyRow{}).Where("id = ?", id).Update("note", *note).Error; err != nil {
				return fmt.Errorf("note of history entry %q: %w", id, err)
			}
		}
		return nil
	})
}

// writeTags adds codes to an entry, checking each against the taxonomy;
// retired codes are accepted only when listed in had.
func writeTags(tx *gorm.DB, historyID string, codes, had []string) error {
	seen := map[string]bool{}
	for _, c := range codes {
		if seen[c] {
			continue
		}
		seen[c] = true
		var t taxonomyRow
		if err := tx.Where("code = ?", c).Take(&t).Error; err != nil {
			return fmt.Errorf("tag %q: %w", c, ErrUnknownCode)
		}
		if t.Retired && !slices.Contains(had, c) {
			return fmt.Errorf("tag %q is retired: %w", c, ErrUnknownCode)
		}
		if err := tx.Create(&historyTagRow{HistoryID: historyID, Code: c}).Error; err != nil {
			return fmt.Errorf("tag %q: %w", c, err)
		}
	}
	return nil
}

// CloseOpenHistory completes every entry still open (calls cut off by a crash
// or kill) with the given reason and end time, and returns how many it closed.
// Outcome: answered when it was answered, else missed for incoming and failed
// for outgoing calls. Duration stays as stored (unknown after a crash).
func (db *DB) CloseOpenHistory(ctx context.Context, reason string, at time.Time) (int, error) {
	res := db.g.WithContext(ctx).Exec(`UPDATE history SET open = 0, reason = ?, ended_at = ?,
		outcome = CASE WHEN answered = 1 THEN 'answered' WHEN direction = 'in' THEN 'missed' ELSE 'failed' END
		WHERE open = 1`, reason, ts(at))
	if res.Error != nil {
		return 0, fmt.Errorf("close open history: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}

// HistoryPerDay counts finished calls per local calendar day (YYYY-MM-DD) and
// outcome since the given moment, oldest day first, outcomes sorted.
func (db *DB) HistoryPerDay(ctx context.Context, since time.Time) ([]DayCount, error) {
	rows, err := db.g.WithContext(ctx).Raw(
		"SELECT started_at, outcome FROM history WHERE started_at >= ? AND open = 0", ts(since)).Rows()
	if err != nil {
		return nil, fmt.Errorf("history per day: %w", err)
	}
	defer rows.Close()
	type key struct{ day, outcome string }
	counts := map[key]int{}
	for rows.Next() {
		var at int64
		var outcome string
		if err := rows.Scan(&at, &outcome); err != nil {
			return nil, fmt.Errorf("history per day: %w", err)
		}
		counts[key{time.Unix(0, at).Local().Format(time.DateOnly), outcome}]++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history per day: %w", err)
	}
	out := make([]DayCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, DayCount{Day: k.day, Outcome: k.outcome, N: n})
	}
	slices.SortFunc(out, func(a, b DayCount) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Outcome, b.Outcome))
	})
	return out, nil
}
