package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// A recording's WAV header gets its lengths, and its row its size and
// duration, when the recording ends (audio/wav.go). A phone killed during a
// recorded call (kill -9, a crash, a power cut) left both at zero: the
// recordings list showed 0 s, the file's header said it held no audio
// (players play nothing), though minutes of the call were on disk. So at
// start, before any call, every recording whose row was never completed is
// completed from its file: the header's lengths from the file's size (whole
// frames), the row's size and duration from them.

// wavHeaderLen is the canonical header audio writes.
const wavHeaderLen = 44

// RepairRecordings completes the recordings a crash left unfinished (size
// 0 in their row) from their files under home, and returns them. A file
// that is missing, shorter than its header or not the phone's WAV is left
// as it is. It must run before any recording starts.
func (db *DB) RepairRecordings(ctx context.Context, home string) ([]Recording, error) {
	var rows []recordingRow
	if err := db.g.WithContext(ctx).Where("size_bytes = 0").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("unfinished recordings: %w", err)
	}
	var fixed []Recording
	for _, row := range rows {
		r := row.recording()
		if r.Path == "" || filepath.IsAbs(r.Path) || strings.Contains(filepath.ToSlash(r.Path), "..") {
			continue
		}
		size, dur, ok := completeWAV(filepath.Join(home, r.Path))
		if !ok {
			continue
		}
		r.SizeBytes, r.DurationS = size, dur
		if err := db.UpdateRecording(ctx, r); err != nil {
			return fixed, err
		}
		fixed = append(fixed, r)
	}
	return fixed, nil
}

// completeWAV writes the lengths of a WAV file cut short into its header;
// it returns the file's size as the header now gives it and its duration.
func completeWAV(path string) (size int64, seconds float64, ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < wavHeaderLen {
		return 0, 0, false
	}
	h := make([]byte, wavHeaderLen)
	if _, err := f.ReadAt(h, 0); err != nil {
		return 0, 0, false
	}
	le := binary.LittleEndian
	byteRate, align := le.Uint32(h[28:]), int64(le.Uint16(h[32:]))
	if string(h[0:4]) != "RIFF" || string(h[8:16]) != "WAVEfmt " || le.Uint32(h[16:]) != 16 || le.Uint16(h[20:]) != 1 ||
		string(h[36:40]) != "data" || byteRate == 0 || align == 0 {
		return 0, 0, false
	}
	data := min((st.Size()-wavHeaderLen)/align*align, (math.MaxUint32-36)/align*align)
	le.PutUint32(h[4:], uint32(36+data))
	le.PutUint32(h[40:], uint32(data))
	if _, err := f.WriteAt(h[:wavHeaderLen], 0); err != nil {
		return 0, 0, false
	}
	if err := f.Sync(); err != nil {
		return 0, 0, false
	}
	return wavHeaderLen + data, float64(data) / float64(byteRate), true
}
