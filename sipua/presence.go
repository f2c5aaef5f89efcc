package sipua

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// Presence values of the user and of watched contacts.
const (
	PresenceAvailable = "available"
	PresenceAway      = "away"
	PresenceBusy      = "busy"
	PresenceDND       = "dnd"
	PresenceOffline   = "offline" // a watched contact's basic status is closed
	PresenceUnknown   = "unknown" // not watched, not yet told, or the subscription failed
)

// dndNote is the PIDF note that marks do-not-disturb: RPID (RFC 4480) has
// no such activity, so the phone publishes "busy" with this note, and reads
// either the note or an <rpid:other> naming it.
const dndNote = "Do not disturb"

// maxTuples bounds how many tuples and persons of one PIDF are read.
const maxTuples = 64

// pidf is the part of an RFC 3863 document (with RFC 4480 RPID activities
// in a data-model person element, RFC 4479) that the phone reads. Names are
// matched by local name, whatever prefixes the sender chose.
type pidf struct {
	XMLName xml.Name     `xml:"presence"`
	Entity  string       `xml:"entity,attr"`
	Tuples  []pidfTuple  `xml:"tuple"`
	Persons []pidfPerson `xml:"person"`
	Notes   []string     `xml:"note"`
}

type pidfTuple struct {
	Basic string   `xml:"status>basic"`
	Notes []string `xml:"note"`
}

type pidfPerson struct {
	Activities struct {
		Any []struct {
			XMLName xml.Name
			Text    string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"activities"`
	Notes []string `xml:"note"`
}

func parsePIDF(body []byte) (pidf, error) {
	var d pidf
	if err := xml.NewDecoder(bytes.NewReader(body)).Decode(&d); err != nil {
		return pidf{}, fmt.Errorf("pidf: %w", err)
	}
	if len(d.Tuples) > maxTuples {
		d.Tuples = d.Tuples[:maxTuples]
	}
	if len(d.Persons) > maxTuples {
		d.Persons = d.Persons[:maxTuples]
	}
	return d, nil
}

// value maps a document to one presence value: any open tuple makes the
// contact reachable (a watcher may get several publications side by side),
// its RPID activities say away or busy, a do-not-disturb note says dnd; no
// open tuple is offline.
func (d pidf) value() string {
	open, anyBasic := false, false
	notes := append([]string{}, d.Notes...)
	for _, t := range d.Tuples {
		b := strings.ToLower(strings.TrimSpace(t.Basic))
		if b != "" {
			anyBasic = true
		}
		if b == "open" {
			open = true
		}
		notes = append(notes, t.Notes...)
	}
	if !anyBasic {
		return PresenceUnknown
	}
	if !open {
		return PresenceOffline
	}
	v := PresenceAvailable
	for _, p := range d.Persons {
		notes = append(notes, p.Notes...)
		for _, a := range p.Activities.Any {
			switch name := strings.ToLower(a.XMLName.Local); name {
			case "away", "vacation", "holiday", "sleeping", "meal", "breakfast", "lunch", "dinner", "travel", "steering":
				if v == PresenceAvailable {
					v = PresenceAway
				}
			case "busy", "on-the-phone", "meeting", "appointment", "performance", "presentation", "worship":
				v = PresenceBusy
			case "other":
				if isDND(a.Text) {
					return PresenceDND
				}
			}
		}
	}
	for _, n := range notes {
		if isDND(n) {
			return PresenceDND
		}
	}
	return v
}

func isDND(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "dnd" || s == "do not disturb" || s == "do-not-disturb"
}

// buildPIDF is the document the phone publishes for its user (RFC 3863
// basic status, RFC 4480 activity in an RFC 4479 person element).
func buildPIDF(entity, value string) []byte {
	basic, activity, note := "open", "", ""
	switch value {
	case PresenceAway:
		activity = "away"
	case PresenceBusy:
		activity, note = "on-the-phone", "On the phone"
	case PresenceDND:
		activity, note = "busy", dndNote
	case PresenceOffline:
		basic = "closed"
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<presence xmlns="urn:ietf:params:xml:ns:pidf" xmlns:dm="urn:ietf:params:xml:ns:pidf:data-model" xmlns:rpid="urn:ietf:params:xml:ns:pidf:rpid" entity="`)
	_ = xml.EscapeText(&b, []byte(entity))
	b.WriteString(`">` + "\n")
	b.WriteString(`<tuple id="softphone"><status><basic>` + basic + `</basic></status>`)
	if note != "" {
		b.WriteString(`<note>` + note + `</note>`)
	}
	b.WriteString("</tuple>\n")
	if activity != "" {
		b.WriteString(`<dm:person id="p1"><rpid:activities><rpid:` + activity + `/></rpid:activities>`)
		if note != "" {
			b.WriteString(`<dm:note>` + note + `</dm:note>`)
		}
		b.WriteString("</dm:person>\n")
	}
	b.WriteString("</presence>\n")
	return b.Bytes()
}
