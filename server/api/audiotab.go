package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v3"
)

// AudioTabs is what POST /calls asks of the audio bridge (*audio.Bridge
// satisfies it): whether a browser tab holds the audio, and waiting for one.
type AudioTabs interface {
	Ready() bool
	WaitReady(ctx context.Context) bool
}

// msgNoTab is the 409 of POST /calls while no tab holds the audio.
const msgNoTab = "no browser tab holds the audio: open the phone page"

// tabWait is how long POST /calls waits for a tab after opening the page.
const tabWait = 5 * time.Second

// awaitTab keeps calls out of dead air (audio.require_tab): with no tab
// holding the audio, the phone opens its page (where there is a desktop)
// and waits up to tabWait for a tab to take the audio; if none does, the
// call is refused with 409 and nothing is dialled.
func (s *Server) awaitTab(ctx context.Context) error {
	a := s.cfg.Audio
	if a == nil || !s.cur.Load().Audio.RequireTab || a.Ready() {
		return nil
	}
	// One page for a burst of calls: a page opened less than tabWait ago
	// is still loading, so the call waits for it instead of opening another.
	now := time.Now().UnixNano()
	last := s.pageOpened.Load()
	opened := now-last < int64(tabWait)
	if !opened && s.cfg.OpenPage != nil {
		if s.pageOpened.CompareAndSwap(last, now) {
			opened = s.cfg.OpenPage()
			if !opened {
				s.pageOpened.Store(0)
			}
		} else {
			opened = true // another call opened it just now
		}
	}
	if opened {
		wctx, cancel := context.WithTimeout(ctx, tabWait)
		defer cancel()
		if a.WaitReady(wctx) {
			return nil
		}
	}
	return fail(fiber.StatusConflict, msgNoTab)
}
