package views

import (
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/softphone/softphone/store"
)

// EndedView is a call that has just ended, shown where its card was with
// why it ended (issue 16 item 3) until it is dismissed, another call starts
// or endedShown passes.
type EndedView struct {
	ID, Number, Name, AccountID string
	Outcome                     Outcome
}

// Suggestion is one entry of the dial field's list: a contact or a recent
// number (issue 16 item 4).
type Suggestion struct {
	Number, Label string
}

// RecentData is the phone page's recent and missed calls (issue 16 item 5).
type RecentData struct {
	Recent []store.HistoryEntry
	Missed []store.HistoryEntry // missed since History was last seen
}

func endedWho(e EndedView) string {
	switch {
	case e.Name != "" && e.Number != "":
		return e.Name + " (" + e.Number + ")"
	case e.Name != "":
		return e.Name
	}
	return e.Number
}

// party is who a history entry was with, shortest first: the name, else the
// number, else the address.
func party(e store.HistoryEntry) string {
	switch {
	case e.Name != "":
		return e.Name
	case e.Number != "":
		return e.Number
	}
	return e.URI
}

// regionErr words the store's refusal of sip.default_region (`must be a
// region code like DE or US, got "x"`) in the page's language; the store
// speaks English (settings.json, the API).
func regionErr(l L, msg string) string {
	const prefix = "must be a region code like DE or US, got "
	if v, err := strconv.Unquote(strings.TrimPrefix(msg, prefix)); err == nil && strings.HasPrefix(msg, prefix) {
		return l.F("err.region", v)
	}
	return msg
}

// currentPage marks the navigation entry of the page shown.
func currentPage(on bool) templ.Attributes {
	if on {
		return templ.Attributes{"aria-current": "page"}
	}
	return nil
}

// dirArrow draws a call's direction: into the phone or out of it.
func dirArrow(dir string) string {
	if dir == "in" {
		return "↙"
	}
	return "↗"
}
