package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// uiListLimit is how many recordings the /ui page lists.
const uiListLimit = 500

func render(c fiber.Ctx, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Context(), &buf); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(buf.Bytes())
}

// uiList: GET /ui, the recordings, newest first, with the outcome and the
// taxonomy of their calls from the history.
func (s *Server) uiList(c fiber.Ctx) error {
	ctx := c.Context()
	recs, err := s.cfg.DB.ListRecordings(ctx, uiListLimit)
	if err != nil {
		return err
	}
	hist, err := s.cfg.DB.ListHistory(ctx, store.HistoryFilter{Limit: historyMax})
	if err != nil {
		return err
	}
	byRec := make(map[string]store.HistoryEntry, len(hist))
	for _, h := range hist {
		if h.Recording != "" {
			byRec[h.Recording] = h
		}
		byRec["call:"+h.CallID] = h
	}
	tax, err := s.taxonomyIndex(c)
	if err != nil {
		return err
	}
	rows := make([]views.RecordingRow, 0, len(recs))
	for _, r := range recs {
		h, ok := byRec[r.ID]
		if !ok {
			h = byRec["call:"+r.CallID]
		}
		rows = append(rows, s.recordingRow(r, h, tax))
	}
	return render(c, views.RecordingsPage(s.uiLang(), s.cur.Load().Appearance.Theme, rows))
}

func (s *Server) taxonomyIndex(c fiber.Ctx) (map[string]store.TaxonomyEntry, error) {
	es, err := s.cfg.DB.ListTaxonomy(c.Context())
	if err != nil {
		return nil, err
	}
	m := make(map[string]store.TaxonomyEntry, len(es))
	for _, e := range es {
		m[e.Code] = e
	}
	return m, nil
}

func (s *Server) recordingRow(r store.Recording, h store.HistoryEntry, tax map[string]store.TaxonomyEntry) views.RecordingRow {
	row := views.RecordingRow{ID: r.ID, When: r.StartedAt, Number: r.Number, Name: r.Name,
		DurationS: r.DurationS, Outcome: h.Outcome, Direction: h.Direction, HistoryID: h.ID}
	// The recorder knows the call, not the party: the history entry does.
	if row.Number == "" {
		row.Number = h.Number
	}
	if row.Name == "" {
		row.Name = h.Name
	}
	lang := s.cur.Load().Appearance.Language
	for _, code := range h.Tags {
		e, ok := tax[code]
		title := code
		if ok {
			if t := inLanguage(e.Titles, lang); t != "" {
				title = t
			}
		}
		if ok && e.Kind == "red_flag" {
			row.RedFlags = append(row.RedFlags, title)
		} else {
			row.Taxonomy = append(row.Taxonomy, title)
		}
	}
	return row
}

func (s *Server) recording(c fiber.Ctx) (store.Recording, error) {
	r, err := s.cfg.DB.GetRecording(c.Context(), param(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return r, fail(fiber.StatusNotFound, msgNoRecording)
	}
	return r, err
}

// uiRecording: GET /ui/recordings/{id}, the player and the transcript.
func (s *Server) uiRecording(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	var h store.HistoryEntry
	if hist, err := s.cfg.DB.ListHistory(c.Context(), store.HistoryFilter{Limit: historyMax}); err == nil {
		for _, e := range hist {
			if e.Recording == r.ID || (e.CallID != "" && e.CallID == r.CallID) {
				h = e
				break
			}
		}
	}
	tax, err := s.taxonomyIndex(c)
	if err != nil {
		return err
	}
	d := views.RecordingDetail{Row: s.recordingRow(r, h, tax), AudioURL: "/ui/recordings/" + r.ID + "/audio",
		AudioType: audioType(r.Path)}
	t, err := s.cfg.DB.GetTranscript(c.Context(), r.ID)
	switch {
	case err == nil:
		d.TranscriptStatus = t.Status
		for _, seg := range t.Segments {
			d.Lines = append(d.Lines, views.TranscriptLine{Speaker: seg.Speaker, StartS: seg.StartS, Text: seg.Text})
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return render(c, views.RecordingPage(s.uiLang(), s.cur.Load().Appearance.Theme, d))
}

func audioType(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".wav":
		return "audio/wav"
	case ".ogg", ".opus":
		return "audio/ogg"
	case ".mp3":
		return "audio/mpeg"
	case ".flac":
		return "audio/flac"
	}
	return "application/octet-stream"
}

// audioPath is the recording's file, which must lie under <home>/recordings.
func (s *Server) audioPath(r store.Recording) (string, bool) {
	dir := filepath.Join(s.cfg.Home, "recordings")
	p := filepath.Clean(filepath.Join(s.cfg.Home, r.Path))
	if filepath.IsAbs(r.Path) {
		p = filepath.Clean(r.Path)
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
		return "", false
	}
	return p, true
}

// uiAudio: GET /ui/recordings/{id}/audio, served with Range support
// (http.ServeContent) so the player can seek.
func (s *Server) uiAudio(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	p, ok := s.audioPath(r)
	if !ok {
		return fail(fiber.StatusNotFound, msgNoAudio)
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(fiber.StatusNotFound, msgNoAudio)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return adaptor.HTTPHandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", audioType(p))
		w.Header().Set("Cache-Control", "no-store")
		// Whole or Range (If-Range kept) only: without the other conditional
		// headers there is no 304 or 412 (the answers are not cached anyway).
		for _, h := range []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"} {
			req.Header.Del(h)
		}
		http.ServeContent(&jsonErrors{ResponseWriter: w}, req, filepath.Base(p), fi.ModTime(), f)
	})(c)
}

// jsonErrors turns the plain-text errors of http.ServeContent (416 for a
// range outside the file) into {"error": "..."}: every error of this API is
// JSON (rest-api.md "Errors"). Content-Range (bytes */<size>) stays.
type jsonErrors struct {
	http.ResponseWriter
	failed bool
}

func (w *jsonErrors) WriteHeader(code int) {
	if code < 400 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.failed = true
	h := w.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	msg := msgInternal
	if code == http.StatusRequestedRangeNotSatisfiable {
		msg = msgBadRange
	}
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.ResponseWriter.WriteHeader(code)
	_, _ = w.ResponseWriter.Write(b)
}

func (w *jsonErrors) Write(b []byte) (int, error) {
	if w.failed {
		return len(b), nil // the plain-text message, replaced above
	}
	return w.ResponseWriter.Write(b)
}

// uiDelete: DELETE /ui/recordings/{id} (token): the row, its transcript and
// the audio file. 204.
func (s *Server) uiDelete(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	if err := s.cfg.DB.DeleteRecording(c.Context(), r.ID); err != nil {
		return storeError(err)
	}
	if p, ok := s.audioPath(r); ok {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// uiLang is the language of the /ui pages: the phone's (appearance.language).
func (s *Server) uiLang() views.L { return views.L(s.cur.Load().Appearance.Language) }
