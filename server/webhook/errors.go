package webhook

import "errors"

// Sentinel errors of the sender; wrapped with %w and the context a reader needs.
var (
	// ErrNoURL: no webhook address is configured.
	ErrNoURL = errors.New("no webhook address is configured")
	// ErrBadURL: the configured address (or template) is not a usable http(s) URL.
	ErrBadURL = errors.New("the webhook address is not a valid http or https URL")
	// ErrDisabled: webhooks (or the Integration module) are switched off.
	ErrDisabled = errors.New("webhooks are switched off")
	// ErrQueueFull: the outbox is full; the event was dropped and counted.
	ErrQueueFull = errors.New("webhook queue is full")
	// ErrSend: the request could not be sent or no answer came (refused, time-out).
	ErrSend = errors.New("webhook not delivered")
)
