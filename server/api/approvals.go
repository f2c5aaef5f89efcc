package api

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/softphone/softphone/store"
)

// Bounds of the questions "may this web page use the phone?" (issue 12
// item 7). A hostile page may knock as often as it likes and from as many
// sub-domains as it owns; none of that may grow without bound or keep the
// phone page full of questions.
const (
	// askWait: "The request may wait up to 30 s for the answer."
	askWait = 30 * time.Second
	// askKept is how long an unanswered question stays on the phone page, so
	// a person who comes back late can still allow (the page then retries).
	askKept = 10 * time.Minute
	// maxAsks questions are shown at once; a further new origin is refused
	// without a question until one is answered or expires.
	maxAsks = 8
	// maxWaiting requests wait for answers at once; more are refused at once.
	maxWaiting = 64
	// maxDenied origins answered "Deny" are remembered for this run, so a
	// refused page cannot ask again and again.
	maxDenied = 256
	// maxOriginLen: an origin is a scheme, a host name and a port.
	maxOriginLen = 300
)

// Approvals holds the open questions of web origins that want to use the
// API, and takes the person's answers from the phone page (server/web shows
// them). Approved origins go to api.allowed_origins; denied ones are
// remembered until the phone stops.
type Approvals struct {
	settings Settings
	wait     time.Duration

	mu      sync.Mutex
	asks    []*ask
	denied  []string // oldest first, at most maxDenied
	waiting int
	watch   []func()
}

// ask is one open question; answered is closed with yes set once answered.
type ask struct {
	origin   string
	at       time.Time
	answered chan struct{}
	yes      bool
}

func newApprovals(settings Settings, wait time.Duration) *Approvals {
	if wait <= 0 {
		wait = askWait
	}
	return &Approvals{settings: settings, wait: wait}
}

// Approvals is the API's question box, for the phone page.
func (s *Server) Approvals() *Approvals { return s.asks }

// OnChange registers fn, called (on its own goroutine) whenever a question
// is added or answered.
func (a *Approvals) OnChange(fn func()) {
	a.mu.Lock()
	a.watch = append(a.watch, fn)
	a.mu.Unlock()
}

func (a *Approvals) changed() {
	a.mu.Lock()
	fns := slices.Clone(a.watch)
	a.mu.Unlock()
	for _, fn := range fns {
		go fn()
	}
}

// Asks lists the origins waiting for an answer, oldest first.
func (a *Approvals) Asks() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expire(time.Now())
	out := make([]string, 0, len(a.asks))
	for _, q := range a.asks {
		out = append(out, q.origin)
	}
	return out
}

// expire drops questions nobody answered within askKept (mu held).
func (a *Approvals) expire(now time.Time) {
	a.asks = slices.DeleteFunc(a.asks, func(q *ask) bool { return now.Sub(q.at) > askKept })
}

// Answer is the person's answer on the phone page. Allow keeps the origin in
// api.allowed_origins (saved before any waiting request goes on); Deny
// remembers it for this run. An origin that is no longer asked about is an
// error (answered in another tab, or expired).
func (a *Approvals) Answer(origin string, allow bool) error {
	a.mu.Lock()
	i := slices.IndexFunc(a.asks, func(q *ask) bool { return q.origin == origin })
	if i < 0 {
		a.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNoQuestion, origin)
	}
	q := a.asks[i]
	a.mu.Unlock()
	if allow {
		if _, err := a.settings.Update(func(st *store.Settings) error {
			if !slices.Contains(st.API.AllowedOrigins, origin) {
				st.API.AllowedOrigins = append(st.API.AllowedOrigins, origin)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("keep approved origin %s: %w", origin, err)
		}
	}
	a.mu.Lock()
	if i = slices.Index(a.asks, q); i >= 0 {
		a.asks = slices.Delete(a.asks, i, i+1)
		q.yes = allow
		close(q.answered)
	}
	if !allow && !slices.Contains(a.denied, origin) {
		a.denied = append(a.denied, origin)
		if len(a.denied) > maxDenied {
			a.denied = a.denied[len(a.denied)-maxDenied:]
		}
	}
	a.mu.Unlock()
	a.changed()
	return nil
}

// ask puts the question for origin (once: later knocks wait for the same
// answer) and waits up to a.wait for it. It is true only for a yes; a
// malformed or denied origin, a full question box and a timeout are no.
func (a *Approvals) ask(ctx context.Context, stop <-chan struct{}, origin string) bool {
	if !validOrigin(origin) {
		return false
	}
	a.mu.Lock()
	if slices.Contains(a.denied, origin) || a.waiting >= maxWaiting {
		a.mu.Unlock()
		return false
	}
	now := time.Now()
	a.expire(now)
	var q *ask
	if i := slices.IndexFunc(a.asks, func(q *ask) bool { return q.origin == origin }); i >= 0 {
		q = a.asks[i]
	}
	added := false
	if q == nil {
		if len(a.asks) >= maxAsks {
			a.mu.Unlock()
			return false
		}
		// fasthttp reuses the header's bytes after the request: keep a copy.
		q = &ask{origin: strings.Clone(origin), at: now, answered: make(chan struct{})}
		a.asks = append(a.asks, q)
		added = true
	}
	a.waiting++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.waiting--
		a.mu.Unlock()
	}()
	if added {
		a.changed()
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case <-q.answered:
		return q.yes
	case <-t.C:
	case <-ctx.Done():
	case <-stop:
	}
	return false
}

// validOrigin accepts what api.allowed_origins may keep: http or https, a
// host, nothing else (RFC 6454 7). "null" (sandboxed frames, files) and
// extension origins are never asked about: allowing "null" would allow every
// sandboxed page at once.
func validOrigin(o string) bool {
	if len(o) > maxOriginLen || strings.ContainsAny(o, " \t\r\n\\") {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && o == u.Scheme+"://"+u.Host
}
