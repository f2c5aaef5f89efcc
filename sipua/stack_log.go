package sipua

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// transportLogger is the logger of sipgo's transports: the phone's own,
// at its level, instead of slog's default one (stderr at Info whatever
// the phone's level). A datagram or stream sipgo cannot parse was logged
// as an error with the whole message as text: up to 32 KiB of a
// stranger's bytes per datagram sent to the SIP port, and the a=crypto
// keys of an INVITE a quirk made unparseable (the SIP trace redacts them,
// redactCrypto). It is a Debug line with the message's length now: a
// stranger's junk is no error of the phone's (RFC 3261 18.3: a malformed
// message is discarded), and nothing of the message is written.
func transportLogger(log *slog.Logger) sip.TransportLayerOption {
	return sip.WithTransportLayerLogger(slog.New(transportHandler{log.Handler()}))
}

// transactionLogger is the same for sipgo's transaction layer, which
// logged to slog's default logger too: a stranger's response matching no
// transaction of ours (an INFO line per datagram, through a handler that
// only logs, as the one here does), and a request or response it cannot
// key (no Via branch, no CSeq: an ERROR per datagram) are Debug lines
// (RFC 3261 17.1.1.2: such a response goes to the UA, which has no use
// for it; 8.2: sipgo answers such a request 400). Neither writes more of
// the message than its start line: no body, no Authorization.
func transactionLogger(log *slog.Logger) sipgo.UserAgentOption {
	return sipgo.WithUserAgentTransactionLayerOptions(
		sip.WithTransactionLayerLogger(slog.New(transportHandler{log.Handler()})),
		sip.WithTransactionLayerUnhandledResponseHandler(func(r *sip.Response) {
			log.Debug("Unhandled sip response: no transaction of ours", "caller", "TransactionLayer", "msg", r.Short())
		}))
}

// The lines sipgo writes to its package-wide logger (sip.DefaultLogger:
// its connections' "ref went negative", a bookkeeping slip of its own)
// went to slog's default one, on stderr at Warn, several a minute on a
// busy phone. They go to the phone's log now, at Debug (transportHandler):
// nothing the person can act on. sipgo's variable may be set only before
// any of its code runs, so it is set once, at init, to a logger that
// writes to the log of the stack started last (sipgoDefaultLogger): one
// for the process, and a second phone in it (tests, a settings change's
// new stack) takes it over.
var sipgoLogTo atomic.Pointer[slog.Logger]

func init() { sip.SetDefaultLogger(slog.New(sipgoHandler{})) }

func sipgoDefaultLogger(log *slog.Logger) { sipgoLogTo.Store(log) }

// sipgoHandler forwards to the stack's log (slog's default before there
// is one), with the attributes sipgo added; groups are not kept.
type sipgoHandler struct{ attrs []slog.Attr }

func (sipgoHandler) target() slog.Handler {
	if l := sipgoLogTo.Load(); l != nil {
		return transportHandler{l.Handler()}
	}
	return slog.Default().Handler()
}

func (h sipgoHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.target().Enabled(ctx, l) // a line it demotes is looked at again at Debug (transportHandler)
}

func (h sipgoHandler) Handle(ctx context.Context, r slog.Record) error {
	r.AddAttrs(h.attrs...)
	return h.target().Handle(ctx, r)
}

func (h sipgoHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return sipgoHandler{attrs: append(slices.Clip(h.attrs), as...)}
}

func (h sipgoHandler) WithGroup(string) slog.Handler { return h }

type transportHandler struct{ slog.Handler }

// strangersError tells a transaction layer's line about a message it
// could not key (a stranger's, malformed) from one about our own failure.
func strangersError(r slog.Record) bool {
	if r.Message != "Server tx failed to handle request" && r.Message != "Client tx failed to handle response" {
		return false
	}
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == "error" && strings.HasPrefix(a.Value.String(), "make key failed")
		return !found
	})
	return found
}

func (h transportHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "failed to parse" || strangersError(r) || strings.Contains(r.Message, "ref went negative") {
		r.Level = slog.LevelDebug
		if !h.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "data" {
			a = slog.Int("data_bytes", len(a.Value.String()))
		}
		out.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h transportHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return transportHandler{h.Handler.WithAttrs(as)}
}

func (h transportHandler) WithGroup(name string) slog.Handler {
	return transportHandler{h.Handler.WithGroup(name)}
}
