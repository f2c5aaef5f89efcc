package sipua

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// Line states of a watched colleague (busy lamp field), from the RFC 4235
// dialog event package.
const (
	LineIdle    = "idle"    // no dialog, or only terminated ones
	LineRinging = "ringing" // a call to the colleague rings (it can be picked up)
	LineBusy    = "busy"    // a call is up, or the colleague is dialling out
	LineUnknown = "unknown" // not watched, not yet told, or the subscription failed
)

// maxDialogs bounds how many <dialog> elements of one NOTIFY are read.
const maxDialogs = 64

// dialogInfo is the body of application/dialog-info+xml (RFC 4235 4.1).
type dialogInfo struct {
	XMLName xml.Name        `xml:"dialog-info"`
	Version int64           `xml:"version,attr"`
	State   string          `xml:"state,attr"` // full, partial
	Entity  string          `xml:"entity,attr"`
	Dialogs []dialogElement `xml:"dialog"`
}

type dialogElement struct {
	ID        string `xml:"id,attr"`
	CallID    string `xml:"call-id,attr"`
	LocalTag  string `xml:"local-tag,attr"`
	RemoteTag string `xml:"remote-tag,attr"`
	Direction string `xml:"direction,attr"` // initiator, recipient
	State     string `xml:"state"`
	Remote    struct {
		Identity string `xml:"identity"`
	} `xml:"remote"`
}

// ringingDialog is what a pickup needs of a colleague's ringing call: its
// dialog at the colleague (RFC 4235 call-id, local-tag, remote-tag).
type ringingDialog struct {
	CallID    string
	LocalTag  string // the colleague's tag (To tag of the ringing INVITE)
	RemoteTag string // the caller's tag (From tag)
	Caller    string // remote identity, when given
}

// parseDialogInfo reads a dialog-info document with encoding/xml (no DTDs,
// no external entities) from a body already bounded by maxNotifyBody.
func parseDialogInfo(body []byte) (dialogInfo, error) {
	var d dialogInfo
	dec := xml.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&d); err != nil {
		return dialogInfo{}, fmt.Errorf("dialog-info: %w", err)
	}
	if len(d.Dialogs) > maxDialogs {
		d.Dialogs = d.Dialogs[:maxDialogs]
	}
	return d, nil
}

// lineState ranks the dialogs of one NOTIFY: a call ringing toward the
// colleague wins (it is what a pickup needs, and kamailio lists a finished
// call beside the next one), then a call that is up or dialling out, else
// the line is idle (an idle line can be one dummy terminated dialog, or no
// dialog at all). The ringing dialog is returned for a pickup.
func (d dialogInfo) lineState() (string, *ringingDialog) {
	state := LineIdle
	var ring *ringingDialog
	for _, dl := range d.Dialogs {
		switch strings.ToLower(strings.TrimSpace(dl.State)) {
		case "trying", "proceeding", "early":
			if strings.EqualFold(dl.Direction, "initiator") {
				if state == LineIdle {
					state = LineBusy // dialling out
				}
				continue
			}
			state = LineRinging
			if ring == nil || (ring.LocalTag == "" && dl.LocalTag != "") {
				ring = &ringingDialog{CallID: dl.CallID, LocalTag: dl.LocalTag, RemoteTag: dl.RemoteTag,
					Caller: strings.TrimSpace(dl.Remote.Identity)}
			}
		case "confirmed":
			if state == LineIdle {
				state = LineBusy
			}
		}
	}
	return state, ring
}

// replaces is the Replaces header value (RFC 3891 3) that takes over the
// ringing call at its caller: there the dialog's local tag is the caller's
// From tag (our remote-tag) and its remote tag the colleague's To tag.
func (r ringingDialog) replaces() string {
	return fmt.Sprintf("%s;to-tag=%s;from-tag=%s;early-only", r.CallID, r.RemoteTag, r.LocalTag)
}
