package sipua

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emiago/sipgo/sip"
)

// SIP trace: sipgo v1.7.2 has one process-wide hook (sip.SIPDebug with
// sip.SIPDebugTracer) called from its UDP and TCP/TLS connections with the
// bytes read and written. The hook hands each message to the stack whose
// socket it went through; that stack's phone keeps the last messages in a
// ring (traceMaxEntries messages, traceMaxBytes bytes) for SIPTrace.
const (
	traceMaxEntries = 500
	traceMaxBytes   = 1 << 20
	traceMaxMessage = 64 << 10 // longer messages are cut
)

type traceEntry struct {
	at        time.Time
	sent      bool
	transport string
	laddr     string
	raddr     string
	text      string
}

// sipTrace is the ring of recent SIP messages of one phone: a circular
// buffer, so adding a message under load copies nothing (a slice shifted on
// every add cost ~50 KB of garbage per message once full).
type sipTrace struct {
	mu    sync.Mutex
	ring  [traceMaxEntries]traceEntry
	first int // index of the oldest entry
	n     int // entries held
	bytes int
}

func (t *sipTrace) add(e traceEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == traceMaxEntries {
		t.dropOldest()
	}
	t.ring[(t.first+t.n)%traceMaxEntries] = e
	t.n++
	t.bytes += len(e.text)
	for t.bytes > traceMaxBytes && t.n > 1 {
		t.dropOldest()
	}
}

func (t *sipTrace) dropOldest() {
	t.bytes -= len(t.ring[t.first].text)
	t.ring[t.first] = traceEntry{}
	t.first = (t.first + 1) % traceMaxEntries
	t.n--
}

// len is the number of messages held.
func (t *sipTrace) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

func (t *sipTrace) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	b.Grow(t.bytes + t.n*100)
	for i := range t.n {
		e := &t.ring[(t.first+i)%traceMaxEntries]
		dir, arrow := "received", "<-"
		if e.sent {
			dir, arrow = "sent", "->"
		}
		fmt.Fprintf(&b, "=== %s %s %s %s %s %s ===\n", e.at.UTC().Format("2006-01-02T15:04:05.000000Z"), dir, e.transport, e.laddr, arrow, e.raddr)
		b.WriteString(e.text)
		if !strings.HasSuffix(e.text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// SIPTrace gives the recent SIP messages sent and received (up to the last
// 500 or 1 MiB), oldest first, each under a line with its time (UTC),
// direction, transport and addresses. Digest credentials are redacted.
func (p *Phone) SIPTrace() string { return p.trace.String() }

// redact cuts credentials out of a message: Authorization and
// Proxy-Authorization keep only username, realm and uri.
func redact(msg []byte) string {
	s := string(msg)
	if len(s) > traceMaxMessage {
		s = s[:traceMaxMessage] + "\n[cut]"
	}
	s = redactCrypto(s) // SRTP keys (sdp_crypto.go)
	if !containsFold(s, "authorization") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		n := strings.ToLower(strings.TrimSpace(name))
		if n != "authorization" && n != "proxy-authorization" {
			continue
		}
		lines[i] = name + ": " + keepDigestParams(value) + "\r\n"
	}
	return strings.Join(lines, "")
}

// containsFold reports whether s holds sub (lower case ASCII) in any case,
// without the copy strings.ToLower would make of every message.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// keepDigestParams keeps the scheme and the username, realm and uri
// parameters of a credentials value; the rest becomes [redacted].
func keepDigestParams(v string) string {
	v = strings.TrimSpace(v)
	scheme, rest, _ := strings.Cut(v, " ")
	kept := []string{}
	for _, part := range splitParams(rest) {
		k, _, _ := strings.Cut(part, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "username", "realm", "uri":
			kept = append(kept, strings.TrimSpace(part))
		}
	}
	kept = append(kept, "[redacted]")
	return scheme + " " + strings.Join(kept, ", ")
}

// splitParams splits a comma-separated parameter list outside quotes.
func splitParams(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// The process-wide hook and the stacks it serves.
var (
	traceOnce   sync.Once
	traceMu     sync.RWMutex
	traceStacks = map[*stack]bool{}
	// ringSeen maps the Call-ID of an outgoing INVITE to the flag set when
	// a 180/183 for it is read off the wire (see noteProvisional).
	ringSeen sync.Map // string -> *atomic.Bool
)

type traceHook struct{}

// Keep-alives (CRLFs only) are left out of the trace: every 25-60 s for
// hours they would push the real messages out of the ring.
func (traceHook) SIPTraceRead(transport, laddr, raddr string, msg []byte) {
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	noteProvisional(msg)
	traceTo(traceEntry{at: time.Now(), transport: transport, laddr: laddr, raddr: raddr}, msg)
}

func (traceHook) SIPTraceWrite(transport, laddr, raddr string, msg []byte) {
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	traceTo(traceEntry{at: time.Now(), sent: true, transport: transport, laddr: laddr, raddr: raddr}, msg)
}

// traceRegister makes st's traffic land in its phone's trace.
func traceRegister(st *stack) {
	traceOnce.Do(func() {
		sip.SIPDebugTracer(traceHook{})
		sip.SIPDebug = true
	})
	traceMu.Lock()
	traceStacks[st] = true
	traceMu.Unlock()
}

func traceUnregister(st *stack) {
	traceMu.Lock()
	delete(traceStacks, st)
	traceMu.Unlock()
}

func traceTo(e traceEntry, msg []byte) {
	traceMu.RLock()
	t := traceOwner(e)
	traceMu.RUnlock()
	if t == nil {
		return
	}
	e.text = redact(msg)
	t.add(e)
}

// traceOwner is the trace a message goes to (traceMu held). While every
// stack registered is one phone's (the usual process, and a settings
// change moving the listeners), it is that phone's: no message of it is
// lost to a socket it cannot name. Only with several phones in the process
// is the stack that owns the socket looked for.
func traceOwner(e traceEntry) *sipTrace {
	var only *sipTrace
	for st := range traceStacks {
		if only == nil {
			only = st.trace
		} else if st.trace != only {
			only = nil
			break
		}
	}
	if only != nil {
		return only
	}
	for st := range traceStacks {
		if st.owns(e.transport, e.laddr, e.raddr) {
			return st.trace
		}
	}
	return nil
}

// owns says whether a message went through one of st's sockets: its UDP
// listener, a connection accepted by its TCP listener, or a socket its
// sipgo user agent opened. sipgo dials a connection of its own for a TCP
// request to an address it has none with (a dialog's request to a far
// end's Contact) and keeps it in its pool under its local address as well
// as the remote one; a UDP request leaves from the listener
// (fromListener), the pool's UDP sockets are looked at all the same.
func (st *stack) owns(transport, laddr, raddr string) bool {
	if transport == "UDP" && laddr == st.udpAddr {
		return true
	}
	if transport != "UDP" {
		if _, p, err := net.SplitHostPort(laddr); err == nil && p == strconv.Itoa(st.tcpPort) {
			return true
		}
	}
	pools := []string{"tcp", "tls"}
	if transport == "UDP" {
		pools = []string{"udp"}
	}
	for _, n := range pools {
		pool := st.ua.TransportLayer().Pool(n)
		if pool == nil {
			continue
		}
		for _, a := range []string{laddr, raddr} {
			if c := pool.Get(a); c != nil {
				same := c.LocalAddr().String() == laddr
				c.Ref(-1) // Get took a reference; TryClose could close it
				if same {
					return true
				}
			}
		}
	}
	return false
}

// noteProvisional marks the outgoing calls whose 180/183 was read. sipgo
// hands responses up from a goroutine each and its INVITE transaction drops
// a 1xx that comes after the 2xx, so a 180 sent just before the 200 can be
// lost to the call; the read loop sees them in wire order.
func noteProvisional(msg []byte) {
	for {
		i := bytes.Index(msg, []byte("SIP/2.0 18"))
		if i < 0 {
			return
		}
		msg = msg[i+len("SIP/2.0 18"):]
		if len(msg) == 0 || (msg[0] != '0' && msg[0] != '3') {
			continue
		}
		if id := headerValue(msg, "call-id", "i"); id != "" {
			if f, ok := ringSeen.Load(id); ok {
				f.(*atomic.Bool).Store(true)
			}
		}
	}
}

// headerValue finds a header (full or compact name) in the header part of
// msg, which starts in the status line.
func headerValue(msg []byte, names ...string) string {
	if j := bytes.Index(msg, []byte("\r\n\r\n")); j >= 0 {
		msg = msg[:j]
	}
	for _, l := range strings.Split(string(msg), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" {
			return ""
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		for _, n := range names {
			if k == n {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}
