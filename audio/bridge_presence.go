package audio

import (
	"context"
	"slices"
)

// TabState is what an open phone page reports about its audio, before and
// between calls (the page opens its microphone only during calls, so
// while the phone is idle no media flows and this is all there is to know).
type TabState string

// The states a page reports. Only a ready page can take the audio.
const (
	TabReady      TabState = "ready"       // can open the microphone and connect when a call needs it
	TabMicBlocked TabState = "mic-blocked" // the person or the browser refused the microphone
	TabNoMic      TabState = "no-mic"      // no microphone found
	TabFailed     TabState = "failed"      // neither WebRTC nor the fallback carried audio
)

// ParseTabState reads a state a page sent; ok is false for anything else.
func ParseTabState(s string) (TabState, bool) {
	switch st := TabState(s); st {
	case TabReady, TabMicBlocked, TabNoMic, TabFailed:
		return st, true
	}
	return "", false
}

// Present records that page tabID is open and in state st (its control
// connection, server/web's /audio/ws, is up). A page that turns ready
// takes the audio when no other page holds it.
func (b *Bridge) Present(tabID string, st TabState) {
	b.mu.Lock()
	_, known := b.present[tabID]
	b.present[tabID] = st
	if !known && !slices.Contains(b.focus, tabID) {
		b.focus = append([]string{tabID}, b.focus...) // behind the tabs focused before
	}
	b.changedLocked()
	b.mu.Unlock()
}

// Gone forgets page tabID (its control connection closed: the page went
// away) and ends its audio connection.
func (b *Bridge) Gone(tabID string) {
	b.mu.Lock()
	delete(b.present, tabID)
	t := b.tabs[tabID]
	b.dropLocked(tabID, t)
	b.focus = slices.DeleteFunc(b.focus, func(id string) bool { return id == tabID })
	b.changedLocked()
	b.mu.Unlock()
	if t != nil {
		t.close()
	}
}

// Holder names the page that holds the audio: the page focused last among
// those that are ready or whose media flows. live reports that media flows
// (a call's audio goes through that page now); a ready page between calls
// holds the audio without any packet passing.
func (b *Bridge) Holder() (tabID string, live bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.holderLocked()
}

func (b *Bridge) holderLocked() (string, bool) {
	for i := len(b.focus) - 1; i >= 0; i-- {
		id := b.focus[i]
		if t := b.tabs[id]; t != nil && t.isFlowing() {
			return id, true
		}
		if st, ok := b.present[id]; ok && st == TabReady {
			return id, false
		}
	}
	return "", false
}

// Ready reports whether a page holds the audio (ready or live): a call
// placed now will be heard.
func (b *Bridge) Ready() bool {
	id, _ := b.Holder()
	return id != ""
}

// WaitReady waits until a page holds the audio or ctx ends.
func (b *Bridge) WaitReady(ctx context.Context) bool {
	for {
		b.mu.Lock()
		id, _ := b.holderLocked()
		ch := b.changed
		b.mu.Unlock()
		if id != "" {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// Changes gives a channel closed at the next change of the pages' states
// or of who holds the audio (for the pages' live header).
func (b *Bridge) Changes() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

func (b *Bridge) changedLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// changedNow is changedLocked for callers without the lock.
func (b *Bridge) changedNow() {
	b.mu.Lock()
	b.changedLocked()
	b.mu.Unlock()
}
