package web

import "errors"

// Sentinel errors of the web server.
var (
	// ErrNotListening: Serve was called before Listen.
	ErrNotListening = errors.New("web: Listen was not called")
	// ErrNoSettings: Config.Settings is required.
	ErrNoSettings = errors.New("web: config needs a settings store")
	// ErrNoAudio: no audio bridge is configured.
	ErrNoAudio = errors.New("no audio bridge")
	// ErrNoWebhooks: no webhook sender is configured.
	ErrNoWebhooks = errors.New("webhooks are not available")
)

// ErrTooManySockets: wsMaxSockets audio sockets are open already.
var ErrTooManySockets = errors.New("too many audio sockets open")

// ErrBadSocketFrame: a page's WebSocket frame was fragmented, unmasked,
// too large or used reserved bits.
var ErrBadSocketFrame = errors.New("web: bad WebSocket frame")

var (
	errBadVolume  = errors.New("volume: must be 0-100")
	errUnknownKey = errors.New("unknown setting")
)
