// Package web serves the phone's own pages on 127.0.0.1: the phone with its
// live calls list (server-sent events), contacts, history, settings, and the
// WebRTC signalling that connects the browser tab's microphone and speaker to
// the phone's audio bridge.
//
// Only the person at this computer may use them: the printed link carries a
// one-time key that sets an HttpOnly, SameSite=Strict session cookie; requests
// without a session get a page saying how to open the phone; a Host header
// that is not a loopback name with our port is refused (DNS rebinding); and
// every request that changes something needs the session's CSRF token and a
// same-origin Origin / Sec-Fetch-Site.
package web
