// Package metrics owns the phone's Prometheus registry and the thirteen
// counters of rest-api.md "Counters": calls and registrations (counted from a
// lossless subscription to the phone's event bus), webhook deliveries (counted
// by the webhook sender) and API requests (counted by server/api). It uses its
// own registry, never the global one, so two phones in one process (tests)
// never share counts.
package metrics
