package httplimit

import (
	"time"

	"github.com/gofiber/fiber/v3"
)

// Limits are the bounds of one listener. The zero value of a field takes the
// product default of Default.
type Limits struct {
	// Read is how long a whole request (request line, headers, body) may take
	// to arrive, counted from the connection's open or, on a kept-alive
	// connection, from the first byte of the request. A client that connects
	// and sends nothing, or sends half a header, is closed after it.
	Read time.Duration
	// Write is how long one write of a response may make no progress (a
	// client that stopped reading). Each write gets it anew, so a long event
	// stream or a large recording keeps flowing while the client reads.
	Write time.Duration
	// Idle is how long a kept-alive connection may wait for its next request.
	Idle time.Duration
	// HeaderBytes bounds the request line plus headers; larger requests get
	// 431 and the connection is closed.
	HeaderBytes int
	// Conns is the most connections served at once; more are answered 503
	// and closed at once.
	Conns int
}

// Default is what the product uses: every half-open, silent or stalled
// connection is gone within 30 s, well inside the 60 s of issue 12.
func Default() Limits {
	return Limits{Read: 10 * time.Second, Write: 30 * time.Second, Idle: 30 * time.Second, HeaderBytes: 8 << 10, Conns: 1024}
}

// withDefaults fills the zero fields from Default.
func (l Limits) withDefaults() Limits {
	d := Default()
	if l.Read <= 0 {
		l.Read = d.Read
	}
	if l.Write <= 0 {
		l.Write = d.Write
	}
	if l.Idle <= 0 {
		l.Idle = d.Idle
	}
	if l.HeaderBytes <= 0 {
		l.HeaderBytes = d.HeaderBytes
	}
	if l.Conns <= 0 {
		l.Conns = d.Conns
	}
	return l
}

// Apply writes the limits into a fiber config; Listener must wrap the
// listener the app serves, as it keeps the time limits. fasthttp's own
// timeouts are left off on purpose: its WriteTimeout bounds a whole
// response, which would cut event streams and large downloads (Listener
// bounds each write instead); its ReadTimeout and IdleTimeout cost two
// clock reads and two deadline calls per request, where Listener tells the
// wait for a request from the request itself by the order of reads and
// writes (listener.go).
func (l Limits) Apply(cfg *fiber.Config) {
	l = l.withDefaults()
	cfg.ReadTimeout = 0
	cfg.IdleTimeout = 0
	cfg.WriteTimeout = 0
	// fasthttp reads the request line and headers into this buffer; a
	// request whose headers do not fit is refused (431).
	cfg.ReadBufferSize = l.HeaderBytes
	cfg.Concurrency = l.Conns
}
