package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/server/web"
	"github.com/softphone/softphone/server/webhook"
	"github.com/softphone/softphone/store"
)

// recordingSink keeps audio's recording rows in the store: audio imports
// nothing of ours, so the wiring maps its RecordingInfo onto store.Recording.
type recordingSink struct{ db *store.DB }

func (s recordingSink) CreateRecording(ctx context.Context, r audio.RecordingInfo) error {
	_, err := s.db.CreateRecording(ctx, recordingOf(r))
	return err
}

func (s recordingSink) UpdateRecording(ctx context.Context, r audio.RecordingInfo) error {
	return s.db.UpdateRecording(ctx, recordingOf(r))
}

func recordingOf(r audio.RecordingInfo) store.Recording {
	return store.Recording{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, StartedAt: r.Started,
		DurationS: r.Duration.Seconds(), SizeBytes: r.Size, Codec: r.Codec, Path: r.Path}
}

// audioConfig is the media engine's part of the settings.
func audioConfig(home string, s store.Settings, db *store.DB) audio.EngineConfig {
	return audio.EngineConfig{RTPPortMin: s.SIP.RTPPortMin, RTPPortMax: s.SIP.RTPPortMax, Codecs: s.Audio.Codecs,
		Home: home, Recordings: recordingSink{db}}
}

// webhookTest adapts the sender's test event to the servers' function type.
func webhookTest(s *webhook.Sender) func(ctx context.Context) (int, string, error) {
	return func(ctx context.Context) (int, string, error) {
		r, err := s.SendTest(ctx)
		return r.Status, r.Body, err
	}
}

// installDesktop registers the phone for tel:, sip: and callto: links.
func installDesktop(o options, stdout interface{ Write([]byte) (int, error) }) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	exe, _ = filepath.EvalSymlinks(exe)
	path, err := web.InstallDesktopEntry(o.home, exe)
	if err != nil {
		return err
	}
	_, err = stdout.Write([]byte("desktop entry written: " + path + "\n"))
	return err
}
