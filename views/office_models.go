package views

import "strconv"

// LampView is one watched contact in the busy lamp panel (issue 19).
type LampView struct {
	ID, Name, Number string
	LineState        string // idle, ringing, busy, unknown
	Presence         string // available, away, busy, dnd, offline, unknown
}

// VoicemailView is one account's mailbox in the header.
type VoicemailView struct {
	AccountID, Name string
	Watched         bool // the mailbox is subscribed to (mwi)
	Known           bool // a count was reported
	New, Old        int
	CanCall         bool // the account has a voicemail number
}

// OfficeView is the header's status choice and voicemail counts.
type OfficeView struct {
	Status    string // the user's choice: available, away, busy, dnd
	Voicemail []VoicemailView
}

// OfficeStatuses are the choices of the header.
var OfficeStatuses = []string{"available", "away", "busy", "dnd"}

func vmCount(l L, v VoicemailView) string {
	if !v.Known {
		return l.T("office.vm.unknown")
	}
	return l.F("office.vm.count", strconv.Itoa(v.New), strconv.Itoa(v.Old))
}
