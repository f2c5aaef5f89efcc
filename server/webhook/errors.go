package webhook

import (
	"errors"

	"github.com/softphone/softphone/store"
)

// Sentinel errors of the sender; wrapped with %w and the context a reader needs.
var (
	// ErrNoURL: no webhook address is configured.
	ErrNoURL = errors.New("no webhook address is configured")
	// ErrBadURL: the configured address (or template) is not a usable http(s) URL.
	ErrBadURL = errors.New("the webhook address is not a valid http or https URL")
	// ErrDisabled: webhooks (or the Integration module) are switched off.
	// It is the store's, so the pages can tell it without this package.
	ErrDisabled = store.ErrWebhooksOff
	// ErrQueueFull: the outbox is full; the event was dropped and counted.
	// It is the store's, so the pages can tell it without this package.
	ErrQueueFull = store.ErrOutboxFull
	// ErrSend: the request could not be sent or no answer came (refused, time-out).
	ErrSend = errors.New("webhook not delivered")
)
