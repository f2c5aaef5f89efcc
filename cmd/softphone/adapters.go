package main

import (
	"context"
	"errors"
	"fmt"
	"net"

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

// audioConfig is the media engine's part of the settings. RTP binds where
// SIP listens: a named address, or every address when sip.listen names none
// (the SDP then carries the address that routes to the PBX, see sipua).
func audioConfig(home string, s store.Settings, db *store.DB, onRecording func(audio.RecordingInfo)) audio.EngineConfig {
	bind := "0.0.0.0"
	if host, _, err := net.SplitHostPort(s.SIP.Listen); err == nil && net.ParseIP(host) != nil {
		bind = host
	}
	return audio.EngineConfig{RTPPortMin: s.SIP.RTPPortMin, RTPPortMax: s.SIP.RTPPortMax, Codecs: s.Audio.Codecs,
		Home: home, BindIP: bind, Recordings: recordingSink{db}, OnRecording: onRecording}
}

// webhookTest adapts the sender's test event to the servers' function type.
func webhookTest(s *webhook.Sender) func(ctx context.Context) (int, string, error) {
	return func(ctx context.Context) (int, string, error) {
		r, err := s.SendTest(ctx)
		return r.Status, r.Body, err
	}
}

// dialCommand is what the desktop entry runs for a tel:, sip: or callto:
// link: the running phone dials at once (the home's key file proves the
// local user, see server/web/dialkey.go).
func dialCommand(o options, stdout interface{ Write([]byte) (int, error) }) error {
	if len(o.args) != 2 {
		return errors.New("usage: softphone dial URI")
	}
	if !phoneRunning(o.home) {
		return fmt.Errorf("the phone is not running with the home folder %s: start it, then dial again", o.home)
	}
	id, err := web.DialNow(o.home, o.args[1])
	if err != nil {
		return err
	}
	_, err = stdout.Write([]byte("calling " + o.args[1] + " (call " + id + ")\n"))
	return err
}

// RecordingFailed: a recording stopped because its file could not be
// written; a full disk puts up the pages' banner (issue 14).
func (s recordingSink) RecordingFailed(_ audio.RecordingInfo, err error) { s.db.NoteWrite(err) }
