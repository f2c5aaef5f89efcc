package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/softphone/softphone/internal/exepages"
)

// startSettle is how long after the start the phone gives back what the
// start used: the garbage of package initialisation and start-up (the
// phone number metadata decoded at init, the migrations, the first
// pages), and its mappings of its executable's pages (internal/exepages:
// most of the 23-26 MB of file pages an idle phone held were touched once,
// by initialisation). Issue 20: idle RSS.
const startSettle = 2 * time.Second

// releaseAfterStart gives memory back once, startSettle after it is
// called, unless ctx ends first.
func releaseAfterStart(ctx context.Context, log *slog.Logger) {
	t := time.NewTimer(startSettle)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		debug.FreeOSMemory()
		releaseExePages(log)
	}
}

// releaseExePages unmaps the executable's clean pages from the process
// (they stay in the page cache; what runs next maps back what it uses).
func releaseExePages(log *slog.Logger) {
	if _, err := exepages.Release(); err != nil {
		log.Debug("executable pages not released", "err", err)
	}
}

// releaseExePagesAfterCalls is freeMemAfterCalls' hook: the executable's
// pages are released at the last release of a quiet spell only (34 s after
// the last call), when the calls' code is no longer wanted, not 2 s after
// each call, where the next call would map back what it needs every time.
func releaseExePagesAfterCalls(log *slog.Logger) func(last bool) {
	return func(last bool) {
		if last {
			releaseExePages(log)
		}
	}
}
