package audio

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// memSink keeps rows in memory (the real one is store.DB, wired outside).
type memSink struct {
	mu      sync.Mutex
	created []RecordingInfo
	updated []RecordingInfo
}

func (m *memSink) CreateRecording(_ context.Context, r RecordingInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.created = append(m.created, r)
	return nil
}

func (m *memSink) UpdateRecording(_ context.Context, r RecordingInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.updated = append(m.updated, r)
	return nil
}

func TestRecordingChannelsHoldTheRightTones(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tab, pbx Codec
	}{
		{"passthrough-PCMU", CodecPCMU, CodecPCMU},
		{"transcoded-opus-tab-PCMA-call", CodecOpus, CodecPCMA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			sink := &memSink{}
			done := make(chan RecordingInfo, 1)
			e, err := NewEngine(EngineConfig{Home: home, Recordings: sink, OnRecording: func(r RecordingInfo) { done <- r }})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			call, err := e.NewSession(SessionConfig{CallID: "call-1", SeanceID: "seance-1"})
			if err != nil {
				t.Fatal(err)
			}
			defer call.Close()
			far, farHeard := farEnd(t, tc.pbx, 1000)
			if err := far.Start(call.LocalAddr(), tc.pbx, 101); err != nil {
				t.Fatal(err)
			}
			if err := call.Start(far.LocalAddr(), tc.pbx, 101); err != nil {
				t.Fatal(err)
			}
			newFakeTab(t, e.Bridge(), "tab", tc.tab, 440)
			waitAttached(t, e.Bridge(), true)
			farHeard.take(t, pcmRate/4) // audio flows both ways

			ctx := context.Background()
			info, err := call.StartRecording(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := call.StartRecording(ctx); err == nil {
				t.Fatal("a second recording of one call started")
			}
			farHeard.take(t, pcmRate) // about one second of call
			got, err := call.StopRecording(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := call.StopRecording(ctx); err == nil {
				t.Fatal("stopped twice")
			}
			select {
			case r := <-done:
				if r.ID != info.ID {
					t.Fatalf("OnRecording got %s, want %s", r.ID, info.ID)
				}
			case <-time.After(time.Second):
				t.Fatal("OnRecording not called")
			}

			path := filepath.Join(home, got.Path)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() != got.Size || st.Mode().Perm() != 0o600 {
				t.Fatalf("file %d bytes mode %v, row says %d", st.Size(), st.Mode().Perm(), got.Size)
			}
			if got.Duration < 700*time.Millisecond || got.Duration > 3*time.Second {
				t.Fatalf("duration %v", got.Duration)
			}
			if got.CallID != "call-1" || got.SeanceID != "seance-1" || got.Codec != tc.pbx.Name || got.Path != filepath.Join("recordings", info.ID+".wav") {
				t.Fatalf("row %+v", got)
			}
			sink.mu.Lock()
			if len(sink.created) != 1 || len(sink.updated) != 1 || sink.updated[0].ID != info.ID {
				t.Fatalf("sink saw %d creates and %d updates", len(sink.created), len(sink.updated))
			}
			sink.mu.Unlock()

			rate, ch, err := readWAV(path)
			if err != nil {
				t.Fatal(err)
			}
			if rate != pcmRate || len(ch) != 2 {
				t.Fatalf("rate %d channels %d", rate, len(ch))
			}
			skip := rate / 5 // the start may hold the priming silence
			assertTones(t, "left (this side)", ch[0][skip:], []float64{440}, []float64{1000})
			assertTones(t, "right (far end)", ch[1][skip:], []float64{1000}, []float64{440})
		})
	}
}

func TestCloseFinishesRecording(t *testing.T) {
	home := t.TempDir()
	sink := &memSink{}
	e, err := NewEngine(EngineConfig{Home: home, Recordings: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, _ := pair(t, e, CodecPCMU, nil)
	if _, err := a.StartRecording(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Close()
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.updated) != 1 {
		t.Fatalf("close left the row unfinished (%d updates)", len(sink.updated))
	}
	if _, _, err := readWAV(filepath.Join(home, sink.updated[0].Path)); err != nil {
		t.Fatal(err)
	}
}
