package audio

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
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

// MaxTranscribe is the longest recording that is transcribed: each channel
// is copied to a temporary file beside the recording (transcribe_temp.go)
// for the recogniser, and a longer one is refused with an error kept with its
// transcript rather than filling the disk or memory with hours of copies.
const MaxTranscribe = 4 * time.Hour

// TranscribeRecording transcribes each channel of a recording separately,
// so every segment says who spoke (left = local, right = remote), and returns
// the segments of both in time order.
func TranscribeRecording(ctx context.Context, tr Transcriber, path string) ([]Segment, error) {
	// Only a regular file: opening a FIFO left in a recording's place
	// waits for a writer for ever, and every later transcript with it.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a file", ErrTranscribe, path)
	}
	d, err := openWAV(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	defer d.Close()
	if d.frames > int64(d.rate)*int64(MaxTranscribe/time.Second) {
		return nil, fmt.Errorf("%w: the recording is %s long, longer than the %s that are transcribed", ErrTranscribe,
			(time.Duration(d.frames/int64(d.rate)) * time.Second).String(), MaxTranscribe)
	}
	// The mono copies hold the recording's audio once more; pocketsphinx
	// squeezes one channel at a time into another copy.
	need := d.frames * 2 * int64(d.channels+1)
	dir, err := transcriptTemp(path, need)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	speakers := []string{SpeakerLocal, SpeakerRemote}
	if d.channels == 1 {
		speakers = []string{SpeakerRemote}
	}
	speakers = speakers[:min(len(speakers), d.channels)]
	// Each channel is copied to a mono file of its own as the recording
	// is read, a buffer at a time: memory stays the same for hours of it.
	monos := make([]*wavWriter, len(speakers))
	loud := make([]bool, len(speakers))
	defer func() {
		for _, w := range monos {
			if w != nil {
				w.close()
			}
		}
	}()
	for i, who := range speakers {
		if monos[i], err = createWAV(filepath.Join(dir, who+".wav"), d.rate, 1); err != nil {
			return nil, tempError(err)
		}
	}
	buf := d.buffer()
	mono := make([]int16, len(buf)/d.channels)
	for {
		n, rerr := d.next(buf)
		for c, w := range monos {
			for i := 0; i < n; i++ {
				mono[i] = buf[i*d.channels+c]
			}
			loud[c] = loud[c] || !silent(mono[:n])
			if err := w.write(mono[:n]); err != nil {
				return nil, tempError(err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrTranscribe, path, rerr)
		}
	}
	for i, w := range monos {
		monos[i] = nil
		if _, err := w.close(); err != nil {
			return nil, tempError(err)
		}
	}
	var out []Segment
	for i, who := range speakers {
		if !loud[i] {
			continue // nothing said: spare the recogniser
		}
		segs, err := tr.Transcribe(ctx, filepath.Join(dir, who+".wav"))
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
