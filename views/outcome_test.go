package views

import (
	"strings"
	"testing"
)

// Each way a call ends is said in words, in English and German, never as
// the raw reason (issue 16 item 3).
func TestOutcomeWords(t *testing.T) {
	for _, c := range []struct {
		o      Outcome
		en, de string
		small  string
	}{
		{Outcome{Direction: "out", Outcome: "declined", Reason: "busy", SIPStatus: 486}, "Busy", "Besetzt", "SIP 486"},
		{Outcome{Direction: "out", Outcome: "declined", Reason: "busy", SIPStatus: 600}, "Busy", "Besetzt", "SIP 600"},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "failed", SIPStatus: 404}, "No such number", "Rufnummer existiert nicht", "SIP 404"},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "failed", SIPStatus: 604}, "No such number", "Rufnummer existiert nicht", "SIP 604"},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "failed", SIPStatus: 484}, "No such number", "Rufnummer existiert nicht", "SIP 484"},
		{Outcome{Direction: "out", Outcome: "missed", Reason: "no-answer", SIPStatus: 408}, "No answer", "Keine Antwort", "SIP 408"},
		{Outcome{Direction: "out", Outcome: "missed", Reason: "no-answer", SIPStatus: 480}, "No answer", "Keine Antwort", "SIP 480"},
		{Outcome{Direction: "out", Outcome: "missed", Reason: "cancelled", SIPStatus: 487}, "No answer", "Keine Antwort", "SIP 487"},
		{Outcome{Direction: "out", Outcome: "declined", Reason: "declined", SIPStatus: 603}, "Declined", "Abgelehnt", "SIP 603"},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "failed"}, "Network unreachable", "Netzwerk nicht erreichbar", ""},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "failed", SIPStatus: 503}, "Call failed", "Anruf fehlgeschlagen", "SIP 503"},
		{Outcome{Direction: "out", Outcome: "answered", Reason: "local-hangup"}, "Ended by you", "Von Ihnen beendet", ""},
		{Outcome{Direction: "in", Outcome: "answered", Reason: "remote-hangup"}, "Ended by the other party", "Vom Gegenüber beendet", ""},
		{Outcome{Direction: "out", Outcome: "missed", Reason: "cancelled"}, "Ended by you", "Von Ihnen beendet", ""},
		{Outcome{Direction: "in", Outcome: "missed", Reason: "cancelled"}, "Missed", "Verpasst", ""},
		{Outcome{Direction: "in", Outcome: "missed", Reason: "no-answer"}, "Missed", "Verpasst", ""},
		{Outcome{Direction: "in", Outcome: "declined", Reason: "declined"}, "Declined by you", "Von Ihnen abgelehnt", ""},
		{Outcome{Direction: "in", Outcome: "answered", Reason: "interrupted"}, "Interrupted (the phone stopped)", "Unterbrochen (das Telefon wurde beendet)", ""},
		{Outcome{Direction: "out", Outcome: "answered", Reason: "transferred"}, "Transferred", "Weitervermittelt", ""},
		{Outcome{Direction: "in", Outcome: "answered", Reason: "media-timeout"}, "Ended: no sound came from the other side any more (the line was lost)", "Beendet: von der Gegenseite kam kein Ton mehr (Verbindung verloren)", ""},
		{Outcome{Direction: "out", Open: true}, "In progress", "Läuft", ""},
		{Outcome{Direction: "out", Outcome: "failed", Reason: "something-new"}, "Call failed", "Anruf fehlgeschlagen", ""},
	} {
		if got := c.o.Words("en"); got != c.en {
			t.Errorf("%+v: en %q, want %q", c.o, got, c.en)
		}
		if got := c.o.Words("de"); got != c.de {
			t.Errorf("%+v: de %q, want %q", c.o, got, c.de)
		}
		if got := c.o.Small(); got != c.small {
			t.Errorf("%+v: small %q, want %q", c.o, got, c.small)
		}
		if w := c.o.Words("en"); strings.Contains(w, "failed") && c.en != w || strings.HasPrefix(w, "why.") {
			t.Errorf("%+v: raw words %q", c.o, w)
		}
	}
}
