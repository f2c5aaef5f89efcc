package api

import (
	"encoding/json"
	"sync"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// GET /history is served from the database on every request, without an
// answer cache (issue 20): the store walks an index for the page's rows and
// their stamps (store.HistoryPage), and histRows keeps each entry as already
// rendered to JSON with the stamp it had. Only entries new or changed since
// (a stamp not seen) are read in full and rendered; the answer is the kept
// bytes joined. Every answer is as current as the database: a note edited on
// the phone's own pages shows on the next request.
type histRows struct {
	mu    sync.RWMutex
	rows  map[int64]renderedRow // by rowid
	bytes int                   // of the kept JSON, at most histBytesMax
}

type renderedRow struct {
	rev  int64
	json []byte
}

// histRowsMax bounds the entries kept (a few pages of the largest size, some
// hundred bytes each); when full, all are dropped and the next pages render
// again.
const histRowsMax = 8192

// histBytesMax bounds the kept JSON in bytes: a note may be as long as a
// request body (64 KiB) and json.Marshal writes each '<' as six bytes, so
// histRowsMax entries alone could keep gigabytes (a page of 1000
// ordinary entries is about 0.5 MB). An entry that does not
// fit after a clear is rendered for its answer only.
const histBytesMax = 8 << 20

func newHistRows() *histRows { return &histRows{rows: make(map[int64]renderedRow)} }

// historyPage is the scratch of one request, pooled: the page of a thousand
// entries would otherwise allocate its slices on every request.
type historyPage struct {
	refs    []store.HistoryRef
	parts   [][]byte
	missing []int64
}

var historyPages = sync.Pool{New: func() any { return new(historyPage) }}

// sendHistory answers the newest f.Limit closed entries as a JSON array.
func (s *Server) sendHistory(c fiber.Ctx, f store.HistoryFilter) error {
	p := historyPages.Get().(*historyPage)
	defer func() {
		clear(p.parts) // the pool must not keep rendered rows alive
		p.refs, p.parts, p.missing = p.refs[:0], p.parts[:0], p.missing[:0]
		historyPages.Put(p)
	}()
	var err error
	p.refs, err = s.cfg.DB.HistoryPage(c.Context(), f, p.refs)
	if err != nil {
		return err
	}
	h := s.hist
	h.mu.RLock()
	for _, r := range p.refs {
		kept, ok := h.rows[r.Row]
		if !ok || kept.rev != r.Rev {
			p.missing = append(p.missing, r.Row)
			kept.json = nil
		}
		p.parts = append(p.parts, kept.json)
	}
	h.mu.RUnlock()
	if len(p.missing) > 0 {
		if err := s.renderHistory(c, p); err != nil {
			return err
		}
	}
	resp := c.Response()
	resp.Header.SetContentType(fiber.MIMEApplicationJSON)
	resp.ResetBody()
	resp.AppendBodyString("[")
	first := true
	for _, b := range p.parts {
		if b == nil { // gone between the page walk and the read
			continue
		}
		if !first {
			resp.AppendBodyString(",")
		}
		first = false
		resp.AppendBody(b)
	}
	resp.AppendBodyString("]")
	return nil
}

// renderHistory reads the entries of p.missing, renders them into p.parts
// and keeps them.
func (s *Server) renderHistory(c fiber.Ctx, p *historyPage) error {
	rows, err := s.cfg.DB.HistoryRows(c.Context(), p.missing)
	if err != nil {
		return err
	}
	at := make(map[int64]int, len(p.refs))
	for i, r := range p.refs {
		at[r.Row] = i
	}
	rendered := make([]renderedRow, len(rows))
	for i, r := range rows {
		b, err := json.Marshal(toHistoryJSON(r.Entry))
		if err != nil {
			return err
		}
		rendered[i] = renderedRow{rev: r.Rev, json: b}
		// The entry as read now, even if it changed after the page walk:
		// its place in the page is the walk's.
		p.parts[at[r.Row]] = b
	}
	h := s.hist
	h.mu.Lock()
	add := 0
	for i := range rows {
		add += len(rendered[i].json)
	}
	if len(h.rows)+len(rows) > histRowsMax || h.bytes+add > histBytesMax {
		clear(h.rows)
		h.bytes = 0
	}
	for i, r := range rows {
		if old, ok := h.rows[r.Row]; ok {
			h.bytes -= len(old.json)
			delete(h.rows, r.Row)
		}
		if h.bytes+len(rendered[i].json) > histBytesMax {
			continue
		}
		h.rows[r.Row] = rendered[i]
		h.bytes += len(rendered[i].json)
	}
	h.mu.Unlock()
	return nil
}
