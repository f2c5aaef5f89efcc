package audio

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// stereoFile writes a recording-like file: left and right channel.
func stereoFile(t *testing.T, left, right []int16) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.wav")
	w, err := createWAV(path, pcmRate, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := max(len(left), len(right))
	st := make([]int16, 2*n)
	for i := 0; i < n; i++ {
		if i < len(left) {
			st[2*i] = left[i]
		}
		if i < len(right) {
			st[2*i+1] = right[i]
		}
	}
	if err := w.write(st); err != nil {
		t.Fatal(err)
	}
	if _, err := w.close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHTTPTranscriberPerChannel(t *testing.T) {
	var mu sync.Mutex
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
			return
		}
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			http.Error(w, "not multipart", http.StatusBadRequest)
			return
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		fields := map[string]string{}
		var audio []byte
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			b, _ := io.ReadAll(p)
			if p.FormName() == "file" {
				if p.FileName() == "" || p.Header.Get("Content-Type") != "audio/wav" {
					http.Error(w, "file part without name or type", http.StatusBadRequest)
					return
				}
				audio = b
			} else {
				fields[p.FormName()] = string(b)
			}
		}
		if fields["model"] != "whisper-test" || fields["response_format"] != "verbose_json" || fields["language"] != "en" {
			http.Error(w, "fields "+strings.Join([]string{fields["model"], fields["response_format"]}, ","), http.StatusBadRequest)
			return
		}
		// The file is one mono channel: say which tone it holds.
		tmp := filepath.Join(t.TempDir(), "up.wav")
		os.WriteFile(tmp, audio, 0o600)
		rate, ch, err := readWAV(tmp)
		if err != nil || len(ch) != 1 {
			http.Error(w, "not a mono WAV", http.StatusBadRequest)
			return
		}
		hz, _ := dominant(ch[0], rate)
		text := map[float64]string{440: "hello from this side", 1000: "I want to cancel my contract"}[hz]
		json.NewEncoder(w).Encode(map[string]any{"text": text, "duration": 1.0,
			"segments": []map[string]any{{"id": 0, "start": 0.25, "end": 0.75, "text": " " + text}}})
	}))
	defer srv.Close()

	var ph1, ph2 float64
	path := stereoFile(t, tone(440, pcmRate, pcmRate, &ph1), tone(1000, pcmRate, pcmRate, &ph2))
	tr := HTTPTranscriber{URL: srv.URL, Model: "whisper-test", Key: "sk-test", Language: "en"}
	segs, err := TranscribeRecording(context.Background(), tr, path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{
		{Speaker: SpeakerLocal, StartS: 0.25, EndS: 0.75, Text: "hello from this side"},
		{Speaker: SpeakerRemote, StartS: 0.25, EndS: 0.75, Text: "I want to cancel my contract"},
	}
	if !reflect.DeepEqual(segs, want) {
		t.Fatalf("segments %+v", segs)
	}
	if codes := MatchTriggers(segs, []Trigger{{Code: "churn", Phrases: []string{"Cancel my contract"}}, {Code: "legal", Phrases: []string{"lawyer"}}}); !reflect.DeepEqual(codes, []string{"churn"}) {
		t.Fatalf("codes %v", codes)
	}

	// A silent channel is not sent; a wrong key is an error without the key.
	mu.Lock()
	requests = 0
	mu.Unlock()
	var ph float64
	silentLeft := stereoFile(t, make([]int16, pcmRate), tone(1000, pcmRate, pcmRate, &ph))
	bad := HTTPTranscriber{URL: srv.URL + "/v1/", Model: "whisper-test", Key: "sk-wrong", Language: "en"}
	_, err = TranscribeRecording(context.Background(), bad, silentLeft)
	if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-wrong") {
		t.Fatalf("error %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 1 {
		t.Fatalf("%d requests, want 1 (the silent channel is skipped)", requests)
	}
}

func TestHTTPTranscriberEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1":    "http://h:1/v1/audio/transcriptions",
		"http://h:1/":   "http://h:1/v1/audio/transcriptions",
		"http://h:1/v1": "http://h:1/v1/audio/transcriptions",
		"http://h:1/openai/v1/audio/transcriptions": "http://h:1/openai/v1/audio/transcriptions",
	} {
		if got := (HTTPTranscriber{URL: in}).endpoint(); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestParseSphinxOutputs(t *testing.T) {
	text := "i want to cancel my contract\n<s> 0.000 0.020 0.99\ni 0.470 0.590 1.0\nwant 0.600 0.960 1.0\nto(3) 0.970 1.050 1.0\n<sil> 1.1 1.2 1.0\ncancel 1.060 1.500 1.0\n</s> 2.5 2.8 1.0\nhello world\nhello 3.0 3.4 0.5\nworld 3.5 3.9 0.5\n"
	got := parseSphinxTimes([]byte(text))
	want := []Segment{{StartS: 0.47, EndS: 1.5, Text: "i want to cancel", Confidence: 1},
		{StartS: 3.0, EndS: 3.9, Text: "hello world", Confidence: 0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("text output: %+v", got)
	}
	js := `{"b":0.0,"d":2.8,"p":0.9,"t":"i want to","w":[{"b":0.0,"d":0.4,"p":1,"t":"<sil>"},{"b":0.47,"d":0.12,"p":1,"t":"i"},{"b":0.6,"d":0.36,"p":1,"t":"want"},{"b":0.97,"d":0.08,"p":1,"t":"to(2)"}]}
{"b":3.0,"d":0.9,"p":0.5,"t":"hello world","w":[]}`
	segs, err := parseSphinxJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 || segs[0].Text != "i want to" || segs[0].StartS != 0.47 || segs[1].Text != "hello world" || segs[1].EndS != 3.9 {
		t.Fatalf("json output: %+v", segs)
	}
}

func TestMatchTriggers(t *testing.T) {
	segs := []Segment{
		{Speaker: SpeakerRemote, Text: "Well, I want to CANCEL my"},
		{Speaker: SpeakerLocal, Text: "I see."},
		{Speaker: SpeakerRemote, Text: "contract! Call my lawyer's office"},
	}
	trig := []Trigger{
		{Code: "churn", Phrases: []string{"cancel my contract"}},   // across segments of one speaker
		{Code: "legal", Phrases: []string{"LAWYER'S", "attorney"}}, // case
		{Code: "word", Phrases: []string{"law"}},                   // not inside a word
		{Code: "mixed", Phrases: []string{"my i see"}},             // not across speakers
		{Code: "empty", Phrases: []string{"  "}},
	}
	if got := MatchTriggers(segs, trig); !reflect.DeepEqual(got, []string{"churn", "legal"}) {
		t.Fatalf("got %v", got)
	}
}

func TestNewTranscriber(t *testing.T) {
	if tr, err := NewTranscriber("pocketsphinx", "", "", ""); err != nil || tr == nil {
		t.Fatal(err)
	}
	if tr, err := NewTranscriber("http", "http://127.0.0.1:1", "m", "k"); err != nil || tr.(HTTPTranscriber).Key != "k" {
		t.Fatal(err)
	}
	if _, err := NewTranscriber("none", "", "", ""); !errors.Is(err, ErrNoRecogniser) {
		t.Fatal(err)
	}
	if _, err := NewTranscriber("http", "", "", ""); err == nil {
		t.Fatal("http without URL")
	}
	if _, err := NewTranscriber("magic", "", "", ""); err == nil {
		t.Fatal("unknown recogniser")
	}
}
