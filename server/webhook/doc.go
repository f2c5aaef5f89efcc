// Package webhook is the webhook sender of webhooks.md: it turns the phone's
// call events into the flat payload of the spec, queues them in the SQLite
// outbox (bounded, persisted, ordered per call) without ever blocking the call
// path, and delivers them over HTTP (POST with a JSON body, or GET with query
// parameters or a URL template) with the configured header, an optional
// Standard Webhooks signature, retries with backoff, and a delivery log.
//
// The flow: Bus -> bounded Subscription (in memory) -> reader goroutine ->
// EnqueueOutboxBatch (SQLite) -> dispatcher -> at most Workers deliveries at once,
// one per call, so the events of one call arrive strictly in order while
// different calls are delivered concurrently.
//
// Crash window: an event is in memory only between Bus.Publish and the
// commit of the outbox write that holds it: normally ~0.1 ms (events that
// arrive during a write go together in the next one), during a burst at most
// the subscription buffer (DefaultBuffer events). A kill -9
// loses what is in that window; everything committed to the outbox is
// delivered after the restart (at least once: an event in flight when the
// process died is sent again, with the same Webhook-Id).
package webhook
