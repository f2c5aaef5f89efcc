package audio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HTTPTranscriber speaks the OpenAI-compatible speech-to-text request:
// POST {URL}/v1/audio/transcriptions, multipart/form-data with file, model
// and response_format=verbose_json, authorised by a Bearer key.
type HTTPTranscriber struct {
	URL      string // base URL, ".../v1" or the full endpoint
	Model    string // e.g. whisper-1
	Key      string // from the keyring ("recogniser:http"); never logged
	Language string // optional ISO-639-1 hint
	Client   *http.Client
}

// endpoint completes the base URL to the transcription endpoint.
func (h HTTPTranscriber) endpoint() string {
	u := strings.TrimRight(h.URL, "/")
	switch {
	case strings.HasSuffix(u, "/audio/transcriptions"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/audio/transcriptions"
	}
	return u + "/v1/audio/transcriptions"
}

// Transcribe implements Transcriber.
func (h HTTPTranscriber) Transcribe(ctx context.Context, wavPath string) ([]Segment, error) {
	f, err := os.Open(wavPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	// The form is sent as its head, the file straight from the disk and
	// its closing boundary, with its length: hours of audio are not held
	// in memory to be sent.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	model := h.Model
	if model == "" {
		model = "whisper-1"
	}
	fields := [][2]string{{"model", model}, {"response_format", "verbose_json"},
		{"timestamp_granularities[]", "segment"}}
	if h.Language != "" {
		fields = append(fields, [2]string{"language", h.Language})
	}
	for _, kv := range fields {
		if err := mw.WriteField(kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
		}
	}
	// The file's bytes follow its part header (sent below).
	if _, err := mw.CreatePart(map[string][]string{
		"Content-Disposition": {fmt.Sprintf(`form-data; name="file"; filename=%q`, filepath.Base(wavPath))},
		"Content-Type":        {"audio/wav"},
	}); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	headLen := form.Len()
	if err := mw.Close(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	head, tail := form.Bytes()[:headLen], form.Bytes()[headLen:]
	body := func() io.ReadCloser {
		return io.NopCloser(io.MultiReader(bytes.NewReader(head), io.NewSectionReader(f, 0, st.Size()), bytes.NewReader(tail)))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint(), body())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	req.ContentLength = int64(len(head)) + st.Size() + int64(len(tail))
	req.GetBody = func() (io.ReadCloser, error) { return body(), nil } // for a 307/308 redirect
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	if h.Key != "" {
		req.Header.Set("Authorization", "Bearer "+h.Key)
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if h.Key != "" {
			// Some servers quote the key they refused; the message is kept
			// with the transcript (database, page), where no secret goes.
			msg = strings.ReplaceAll(msg, h.Key, "[key]")
		}
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fmt.Errorf("%w: %s answered %d: %s", ErrTranscribe, req.URL.Host, resp.StatusCode, msg)
	}
	return parseVerboseJSON(raw)
}

// parseVerboseJSON reads {"text","duration","segments":[{"start","end","text","avg_logprob"}]}.
func parseVerboseJSON(raw []byte) ([]Segment, error) {
	var v struct {
		Text     string  `json:"text"`
		Duration float64 `json:"duration"`
		Segments []struct {
			Start float64 `json:"start"`
			End   float64 `json:"end"`
			Text  string  `json:"text"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: answer is not verbose_json: %v", ErrTranscribe, err)
	}
	var out []Segment
	for _, s := range v.Segments {
		if t := strings.TrimSpace(s.Text); t != "" {
			out = append(out, Segment{StartS: s.Start, EndS: s.End, Text: t})
		}
	}
	if len(out) == 0 && strings.TrimSpace(v.Text) != "" {
		out = append(out, Segment{EndS: v.Duration, Text: strings.TrimSpace(v.Text)})
	}
	return out, nil
}
