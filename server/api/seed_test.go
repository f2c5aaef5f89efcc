package api

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

// seeded holds the ids seed wrote.
type seeded struct {
	contact   store.Contact
	history   []store.HistoryEntry // newest first
	recording store.Recording
	audioLen  int
}

// t0 is the start of the seeded history.
var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// seed writes a contact, six finished calls (answered, missed, declined by
// this phone, failed, answered, declined by the other side) one minute
// apart, and a recording of the first call with a transcript and a WAV file.
func (e *env) seed() seeded {
	e.t.Helper()
	ctx := context.Background()
	var s seeded
	var err error
	if s.contact, err = e.db.CreateContact(ctx, store.Contact{Name: "Ada Lovelace", Number: "+4930123", AccountID: accountA}); err != nil {
		e.t.Fatal(err)
	}
	type c struct {
		outcome  string
		declined bool
	}
	calls := []c{{"answered", false}, {"missed", false}, {"declined", true}, {"failed", false}, {"answered", false}, {"declined", false}}
	recID := uuid.NewString()
	for i, cl := range calls {
		start := t0.Add(time.Duration(i) * time.Minute)
		h := store.HistoryEntry{CallID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: accountA,
			Account: "alice@pbx.test", Direction: "in", Number: "+49301" + itoa(i), URI: "sip:+49301" + itoa(i) + "@pbx.test",
			Outcome: cl.outcome, Answered: cl.outcome == "answered", Declined: cl.declined, Reason: "remote-hangup",
			AnsweredBy: "no", StartedAt: start, EndedAt: start.Add(30 * time.Second)}
		if h.Answered {
			h.AnsweredAt, h.DurationS = start.Add(5*time.Second), 25
		}
		if i == 0 {
			h.Recording, h.Name = recID, "Ada Lovelace"
		}
		if err := e.db.StartHistory(ctx, store.HistoryEntry{CallID: h.CallID, Number: h.Number, StartedAt: start}); err != nil {
			e.t.Fatal(err)
		}
		if err := e.db.FinishHistory(ctx, h); err != nil {
			e.t.Fatal(err)
		}
	}
	if s.history, err = e.db.ListHistory(ctx, store.HistoryFilter{Limit: 100}); err != nil {
		e.t.Fatal(err)
	}
	first := s.history[len(s.history)-1]
	if err := e.db.SetHistoryTags(ctx, first.ID, []string{"sales", "cancellation"}); err != nil {
		e.t.Fatal(err)
	}
	wav := testWAV(2)
	s.audioLen = len(wav)
	if err := os.MkdirAll(filepath.Join(e.home, "recordings"), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "recordings", recID+".wav"), wav, 0o600); err != nil {
		e.t.Fatal(err)
	}
	if s.recording, err = e.db.CreateRecording(ctx, store.Recording{ID: recID, CallID: first.CallID, SeanceID: first.SeanceID,
		StartedAt: first.StartedAt, DurationS: 25, SizeBytes: int64(len(wav)), Codec: "PCMU",
		Path: filepath.Join("recordings", recID+".wav")}); err != nil { // no party: as the audio engine writes it
		e.t.Fatal(err)
	}
	if err := e.db.SaveTranscript(ctx, store.Transcript{RecordingID: recID, Status: "done", Recogniser: "test",
		Segments: []store.TranscriptSegment{
			{Speaker: "remote", StartS: 0.5, EndS: 3, Text: "Hello, I would like to cancel my contract."},
			{Speaker: "local", StartS: 3.2, EndS: 5, Text: "I am sorry to hear that <b>really</b>."},
		}}); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// testWAV is secs seconds of 8 kHz 16-bit mono silence with a RIFF header.
func testWAV(secs int) []byte {
	n := 8000 * 2 * secs
	b := make([]byte, 44+n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], 8000)
	binary.LittleEndian.PutUint32(b[28:], 16000)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(n))
	return b
}

func storeRecording(path string) store.Recording { return store.Recording{Path: path} }
