package sipua

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// Config is what New needs. Only Settings is required: without Bus the phone
// makes its own, without Secrets accounts register without a password,
// without DB no history is written, and without Media each call gets a
// silent RTP socket (enough for signalling tests).
type Config struct {
	Settings store.Settings
	Secrets  SecretGetter
	DB       HistoryDB // *store.DB
	Bus      *Bus
	Media    *audio.Engine // the media of calls; see MediaEngine
	// MediaEngine is the media side of calls (audio.Engine through
	// AudioMedia). Nil gives silent sessions.
	MediaEngine MediaEngine
	Logger      *slog.Logger
	// UserAgent is the product token sent in User-Agent; default "softphone".
	UserAgent string
	// KeepAliveUDP and KeepAliveTCP are the intervals of the CRLF
	// keep-alives toward each account's server (RFC 5626 3.5.1): a double
	// CRLF from the UDP listener, or on the open TCP/TLS connection.
	// Zero gives 25 s on UDP (NAT bindings last ~30 s) and 60 s on TCP/TLS.
	KeepAliveUDP, KeepAliveTCP time.Duration
	// MediaTimeout ends an answered call whose far end sends no RTP and no
	// RTCP for this long while neither side holds it (media_timeout.go).
	// Zero: the settings' sip.media_timeout_s (30 s by default, 0 there:
	// never); negative: never. Tests set it below the settings' 5 s floor.
	MediaTimeout time.Duration
	// SubscribeExpiry is the lifetime asked for in SUBSCRIBE (busy lamps,
	// presence, voicemail), refreshed at 80% of what is granted. Zero: 600 s.
	SubscribeExpiry int
	// TabHeld reports whether a browser tab holds the audio (audio.Bridge's
	// Ready). Nil: the bridge of Media when there is one, else never. With
	// audio.require_tab it decides whether a person is at the phone, which
	// changes what auto-answer does (personAtPhone).
	TabHeld func() bool
	// Home is the phone's folder: the TLS listener's certificate is made
	// and kept there when sip.tls_cert_file is empty (in memory without it).
	Home string
}

// SecretGetter reads a secret by name ("account:<id>"); store.Secrets is one.
type SecretGetter interface {
	Get(name string) (string, error)
}

// HistoryDB is the part of store.DB that the history subscriber and caller
// names use.
type HistoryDB interface {
	StartHistory(ctx context.Context, e store.HistoryEntry) error
	FinishHistory(ctx context.Context, e store.HistoryEntry) error
	FindContactByNumber(ctx context.Context, number string) (store.Contact, error)
	CloseOpenHistory(ctx context.Context, reason string, at time.Time) (int, error)
}

// MediaEngine makes one RTP session per call and mixes conferences. It is
// declared here, where it is used, so the state machine can be tested with a
// stand-in; AudioMedia adapts *audio.Engine.
type MediaEngine interface {
	NewSession(callID, seanceID string, onDTMF func(digit byte)) (MediaSession, error)
	Conference(sessions ...MediaSession) error
	Codecs() []audio.Codec
}

// MediaSession is one call's RTP session (audio.Session).
type MediaSession interface {
	LocalAddr() *net.UDPAddr
	Start(remote *net.UDPAddr, codec audio.Codec, dtmfPT uint8) error
	SetDirection(d audio.Direction)
	SendDTMF(digit byte) error
	SetMute(on bool)
	Close() error
}

// AccountStatus is an account with the state of its registration.
type AccountStatus struct {
	store.Account
	State string // registered, registering, unregistered, failed, disabled
	Cause string // for failed: "403 Forbidden", "timeout", ...
	// Voicemail is the mailbox's message counts (RFC 3842); nil while unknown.
	Voicemail *Voicemail
}

// Registration states of an account (rest-api.md shows only "registered").
const (
	RegRegistered   = "registered"   // the line is up
	RegRegistering  = "registering"  // REGISTER sent, no final answer yet
	RegUnregistered = "unregistered" // not registered (stopped, or not yet started)
	RegFailed       = "failed"       // refused or timed out; Cause says which; retried with backoff
	RegDisabled     = "disabled"     // account switched off in settings
)
