// Package api serves the local call-control REST API of rest-api.md on
// 127.0.0.1:<api.port>: calls, contacts, history, accounts, settings,
// taxonomy, /metrics, /events (Server-Sent Events of the call events), the
// /ui recording pages and /openapi.json. It starts, stops and moves its
// listener when the settings change, without a restart. Only this package
// turns errors of the phone and the store into HTTP statuses.
package api
