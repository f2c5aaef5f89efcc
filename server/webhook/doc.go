// Package webhook is the webhook sender of webhooks.md: it turns the phone's
// call events into the flat payload of the spec, queues them in the SQLite
// outbox (bounded, persisted, ordered per call) without ever blocking the call
// path, and delivers them over HTTP (POST with a JSON body, or GET with query
// parameters or a URL template) with the configured header, an optional
// Standard Webhooks signature, retries with backoff, and a delivery log.
//
// The flow: Bus -> bounded Subscription (in memory) -> reader goroutine ->
// JournalOutbox (a file) -> EnqueueJournaled (SQLite) -> dispatcher -> at
// most Workers deliveries at once, one per call, so the events of one call arrive strictly in order while
// different calls are delivered concurrently.
//
// Crash window: an event is in memory only between Bus.Publish and its
// append to the store's outbox journal, microseconds after (during a burst,
// at most the subscription buffer of DefaultBuffer events). Journaled events
// go into the outbox in batches (the first after a quiet spell at once, then
// at most every 100 ms) and, after a crash, when the database is next
// opened. A kill -9 loses what is in that window; everything journaled is
// delivered after the restart (at least once: an event in flight when the
// process died is sent again, with the same Webhook-Id).
package webhook
