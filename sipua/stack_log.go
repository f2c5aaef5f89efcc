package sipua

import (
	"context"
	"log/slog"

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

type transportHandler struct{ slog.Handler }

func (h transportHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "failed to parse" {
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
