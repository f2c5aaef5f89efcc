// Package testpeer starts the real peers the integration tests talk to:
// kamailio as registrar and proxy, baresip as a user agent that plays a tone
// and records what it hears, SIPp scenarios, and a throw-away gnome-keyring.
// The recipes come from the project's harness and are copied here so that the
// tests do not depend on anything outside the repository. Tests that use a
// peer call Require first: a missing program skips the test on a developer's
// machine and fails it in CI (CI=true), so CI can never pass by skipping.
package testpeer
