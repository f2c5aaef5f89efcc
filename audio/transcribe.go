package audio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Speakers of transcript segments: the recording's left and right channels.
const (
	SpeakerLocal  = "local"  // this side (the tab's microphone), left channel
	SpeakerRemote = "remote" // the far end, right channel
)

// Segment is one utterance of a transcript, seconds from the recording's start.
type Segment struct {
	Speaker    string
	StartS     float64
	EndS       float64
	Text       string
	Confidence float64 // 0..1 when the recogniser says, else 0
}

// Transcriber turns one mono 16-bit WAV file into timed text.
type Transcriber interface {
	Transcribe(ctx context.Context, wavPath string) ([]Segment, error)
}

// TranscribeRecording transcribes each channel of a recording separately,
// so every segment says who spoke (left = local, right = remote), and returns
// the segments of both in time order.
func TranscribeRecording(ctx context.Context, tr Transcriber, path string) ([]Segment, error) {
	rate, chans, err := readWAV(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	dir, err := os.MkdirTemp("", "softphone-transcript-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	defer os.RemoveAll(dir)
	speakers := []string{SpeakerLocal, SpeakerRemote}
	if len(chans) == 1 {
		speakers = []string{SpeakerRemote}
	}
	var out []Segment
	for i, who := range speakers {
		if i >= len(chans) {
			break
		}
		if silent(chans[i]) {
			continue // nothing said: spare the recogniser
		}
		mono := filepath.Join(dir, who+".wav")
		if err := writeMonoWAV(mono, rate, chans[i]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
		}
		segs, err := tr.Transcribe(ctx, mono)
		if err != nil {
			return nil, fmt.Errorf("transcribe %s channel: %w", who, err)
		}
		for _, s := range segs {
			s.Speaker = who
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartS < out[j].StartS })
	return out, nil
}

// silent reports whether a channel never rises above a whisper.
func silent(pcm []int16) bool {
	for _, v := range pcm {
		if v > 300 || v < -300 {
			return false
		}
	}
	return true
}

// NewTranscriber makes the recogniser the settings name (transcription.recogniser):
// "pocketsphinx", or "http" with the base URL, model and key (from the
// keyring). "none" or "" gives ErrNoRecogniser.
func NewTranscriber(recogniser, url, model, key string) (Transcriber, error) {
	switch recogniser {
	case "pocketsphinx":
		return Pocketsphinx{}, nil
	case "http":
		if url == "" {
			return nil, fmt.Errorf("%w: the http recogniser needs a URL", ErrTranscribe)
		}
		return HTTPTranscriber{URL: url, Model: model, Key: key}, nil
	case "", "none":
		return nil, ErrNoRecogniser
	}
	return nil, fmt.Errorf("%w: unknown recogniser %q", ErrTranscribe, recogniser)
}
