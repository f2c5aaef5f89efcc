package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// historyPageSize is how many entries one page of history shows.
const historyPageSize = 25

// historyPage is GET /history: ?missed=1 &declined=1 &account=<id> &q=<text> &page=<n>.
func (s *Server) historyPage(c fiber.Ctx) error {
	if s.cfg.DB == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nodb"))
	}
	s.historySeen(c.Context()) // the missed calls are seen: the badge goes
	page, _ := strconv.Atoi(c.Query("page"))
	page = max(page, 0)
	f := store.HistoryFilter{
		Limit: historyPageSize + 1, Offset: page * historyPageSize,
		Missed: c.Query("missed") != "", Declined: c.Query("declined") != "",
		AccountID: c.Query("account"), Text: strings.TrimSpace(c.Query("q")),
	}
	entries, err := s.cfg.DB.ListHistory(c.Context(), f)
	if err != nil {
		return err
	}
	d := views.HistoryData{Filter: f, Page: page, Accounts: s.accountViews(), RecordingURL: s.recordingURL()}
	if len(entries) > historyPageSize {
		entries, d.HasMore = entries[:historyPageSize], true
	}
	d.Entries = entries
	if d.Taxonomy, err = s.cfg.DB.ListTaxonomy(c.Context()); err != nil {
		return err
	}
	if pd, ok := s.cfg.DB.(PerDay); ok {
		since := time.Now().AddDate(0, 0, -27)
		since = time.Date(since.Year(), since.Month(), since.Day(), 0, 0, 0, 0, time.Local)
		if d.PerDay, err = pd.HistoryPerDay(c.Context(), since); err != nil {
			return err
		}
	}
	return s.render(c, views.HistoryPage(s.fullPage(c, "history"), d))
}

// recordingURL links a recording to the API's page of it while the API serves one.
func (s *Server) recordingURL() func(string) string {
	st := s.cfg.Settings.Get()
	if s.cfg.API == nil || !st.Integration.Enabled || !st.API.Enabled {
		return nil
	}
	addr := s.cfg.API.Addr()
	if addr == "" {
		return nil
	}
	return func(id string) string {
		return (&url.URL{Scheme: "http", Host: addr, Path: "/ui/recordings/" + id}).String()
	}
}

// historyTags is POST /history/:id/tags (tags=code...).
func (s *Server) historyTags(c fiber.Ctx) error {
	var codes []string
	if args := c.Request().PostArgs(); args != nil {
		for _, v := range args.PeekMulti("tags") {
			codes = append(codes, string(v))
		}
	}
	if err := s.cfg.DB.SetHistoryTags(c.Context(), c.Params("id"), codes); err != nil {
		return s.fail(c, fiber.StatusBadRequest, s.storeWords(err, "history.gone"))
	}
	return s.backToHistory(c)
}

// maxNote is the longest note of a history entry, in bytes.
const maxNote = store.NoteMax

// historyNote is POST /history/:id/note.
func (s *Server) historyNote(c fiber.Ctx) error {
	note := strings.TrimSpace(c.FormValue("note"))
	if len(note) > maxNote {
		return s.fail(c, fiber.StatusBadRequest, s.lang().F("err.toolong", maxNote))
	}
	if err := s.cfg.DB.SetHistoryNote(c.Context(), c.Params("id"), note); err != nil {
		return s.fail(c, fiber.StatusBadRequest, s.storeWords(err, "history.gone"))
	}
	return s.backToHistory(c)
}

// backToHistory answers a change with the history page as the person saw it
// (htmx picks the changed entry out of it).
func (s *Server) backToHistory(c fiber.Ctx) error {
	if !isHTMX(c) {
		return c.Redirect().Status(fiber.StatusSeeOther).To("/history#h-" + c.Params("id"))
	}
	ref := c.Get("HX-Current-URL")
	if u, err := url.Parse(ref); err == nil && u.Path == "/history" {
		c.Request().URI().SetQueryString(u.RawQuery)
	} else {
		c.Request().URI().SetQueryString("")
	}
	return s.historyPage(c)
}
