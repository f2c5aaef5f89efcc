// Package httplimit holds the bounds every HTTP listener of the phone keeps
// (issue 12 item 4): how long a request may take to arrive, how long a
// response may stall, how long a kept-alive connection may idle, how large
// the request headers may be and how many connections are served at once.
// The local API (server/api) and the phone pages (server/web) both use it, so
// a half-open or stalled connection is released within a minute on either.
package httplimit
