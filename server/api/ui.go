package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
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
	// No other site may frame these pages (a page on the web framed /ui,
	// the person's calls and recordings, under its own content), nor have
	// them sniffed as something else; as the phone pages (server/web).
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderContentSecurityPolicy, "frame-ancestors 'none'")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
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
	byCall, err := s.historyOfRecordings(ctx, recs...)
	if err != nil {
		return err
	}
	tax, err := s.taxonomyIndex(c)
	if err != nil {
		return err
	}
	rows := make([]views.RecordingRow, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, s.recordingRow(r, byCall[r.CallID], tax))
	}
	return render(c, views.RecordingsPage(s.uiLang(), s.cur.Load().Appearance.Theme, rows))
}

// historyOfRecordings gives the history entries of the recordings' calls,
// by call id, however old the calls: the pages looked for them among the
// newest 1,000 entries, so the recordings of older calls showed no number,
// outcome or tags.
func (s *Server) historyOfRecordings(ctx context.Context, recs ...store.Recording) (map[string]store.HistoryEntry, error) {
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		if r.CallID != "" {
			ids = append(ids, r.CallID)
		}
	}
	hist, err := s.cfg.DB.HistoryByCalls(ctx, ids)
	if err != nil {
		return nil, err
	}
	byCall := make(map[string]store.HistoryEntry, len(hist))
	for _, h := range hist {
		byCall[h.CallID] = h
	}
	return byCall, nil
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
	byCall, err := s.historyOfRecordings(c.Context(), r)
	if err != nil {
		return err
	}
	h := byCall[r.CallID]
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
		d.NoRecogniser = !s.recogniserSet()
		if t.Status == "failed" {
			// Why, as stored (a full disk in the page's words), and the
			// page's "Try again" (README: a failed one can be run again).
			d.TranscriptError, d.DiskFull = t.Error, store.IsDiskFull(errors.New(t.Error)) || strings.Contains(t.Error, "disk of the recordings is full")
			d.RetryURL = "/ui/recordings/" + r.ID + "/transcript"
		}
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

// uiAudio: GET /ui/recordings/{id}/audio, served with Range support so the
// player can seek. http.ServeContent decides the answer (whole, one range,
// 416) on a HEAD run that writes no body; the part of the file it chose is
// then streamed from the file. Through fiber's net/http adaptor, which keeps
// the body of a handler that does not flush in memory, one GET of a one-hour
// recording (16 kHz stereo, 230 MB) allocated over 1.5 GB, and each seek of
// the player (Range: bytes=N-) as much again.
func (s *Server) uiAudio(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	p, ok := s.audioPath(r)
	if !ok {
		return fail(fiber.StatusNotFound, msgNoAudio)
	}
	// Only a regular file: opening a FIFO left in a recording's place
	// waits for a writer for ever, and the player's request with it.
	if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
		return fail(fiber.StatusNotFound, msgNoAudio)
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(fiber.StatusNotFound, msgNoAudio)
	}
	if err != nil {
		return err
	}
	streamed := false
	defer func() {
		if !streamed {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	// Whole or Range (If-Range kept) only: without the other conditional
	// headers there is no 304 or 412 (the answers are not cached anyway).
	// Several ranges are ignored, as RFC 9110 14.2 allows: the whole audio
	// is sent, never a multipart/byteranges body the document does not have.
	// A range unit other than bytes is ignored too (RFC 9110 14.2); the
	// unit's name is case-insensitive (14.1), ServeContent takes only
	// "bytes=".
	req := &http.Request{Method: http.MethodHead, Header: http.Header{}}
	if rg := header(c, fiber.HeaderRange); len(rg) > 6 && strings.EqualFold(rg[:6], "bytes=") && !strings.Contains(rg, ",") {
		req.Header.Set("Range", "bytes="+rg[6:])
		if ir := header(c, fiber.HeaderIfRange); ir != "" {
			req.Header.Set("If-Range", ir)
		}
	}
	w := &headWriter{h: http.Header{"Content-Type": {audioType(p)}, "Cache-Control": {"no-store"}}}
	http.ServeContent(w, req, filepath.Base(p), fi.ModTime(), f)
	if w.code == http.StatusPartialContent && w.h.Get("Content-Length") == "0" {
		// "bytes=-0": a suffix of no bytes is unsatisfiable (RFC 9110
		// 14.1.2); ServeContent answered 206 with "bytes <size>-<size-1>".
		w.code = http.StatusRequestedRangeNotSatisfiable
		w.h.Set("Content-Range", "bytes */"+strconv.FormatInt(fi.Size(), 10))
		w.h.Del("Accept-Ranges")
		w.h.Del("Last-Modified")
	}
	if w.code >= 400 {
		// Its plain-text error becomes {"error": "..."}: every error of
		// this API is JSON (rest-api.md "Errors"). Content-Range (bytes
		// */<size>) stays.
		for _, h := range []string{"Content-Range", "Accept-Ranges", "Last-Modified", "Cache-Control"} {
			if v := w.h.Get(h); v != "" {
				c.Set(h, v)
			}
		}
		if w.code == http.StatusRequestedRangeNotSatisfiable {
			b, _ := json.Marshal(map[string]string{"error": msgBadRange})
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return c.Status(w.code).Send(b)
		}
		return fmt.Errorf("serve audio %s: %d", p, w.code)
	}
	n, err := strconv.ParseInt(w.h.Get("Content-Length"), 10, 64)
	if err != nil {
		return fmt.Errorf("serve audio %s: no length", p)
	}
	// ServeContent left the file at the start of what it chose to send.
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	for k, v := range w.h {
		if k != "Content-Length" {
			c.Set(k, v[0])
		}
	}
	c.Status(w.code)
	if c.Method() == fiber.MethodHead {
		c.Response().Header.SetContentLength(int(n))
		return nil
	}
	// fasthttp sends it with Content-Length and closes the file when done
	// (or when the client goes away).
	streamed = true
	return c.SendStream(struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, at, n), f}, int(n))
}

// headWriter keeps the status and headers of http.ServeContent's HEAD run;
// it writes nothing.
type headWriter struct {
	h    http.Header
	code int
}

func (w *headWriter) Header() http.Header { return w.h }

func (w *headWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *headWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(b), nil
}

// msgAudioKept: DELETE /ui/recordings/{id} while the audio file cannot be
// removed (a read-only or failing disk, no rights on the folder).
const msgAudioKept = "the recording's audio file could not be removed; the recording is kept, try again"

// uiDelete: DELETE /ui/recordings/{id} (token): the row, its transcript and
// the audio file. 204.
func (s *Server) uiDelete(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	// The audio goes first: when it cannot be removed, the recording stays
	// and the client is told. Removed after the row, such a refusal left the
	// conversation's audio on the disk for good, which the person asked to
	// delete and no later request could name (the retry answered 404). A
	// row refused after its audio is gone stays listed without audio, and
	// the retry removes it.
	if p, ok := s.audioPath(r); ok {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("recording kept: its audio could not be removed", "recording", r.ID, "err", err)
			return fail(fiber.StatusInternalServerError, msgAudioKept)
		}
	}
	if err := s.cfg.DB.DeleteRecording(c.Context(), r.ID); errors.Is(err, store.ErrNotFound) {
		return fail(fiber.StatusNotFound, msgNoRecording) // deleted since the lookup
	} else if err != nil {
		return storeError(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// uiLang is the language of the /ui pages: the phone's (appearance.language).
func (s *Server) uiLang() views.L { return views.L(s.cur.Load().Appearance.Language) }
