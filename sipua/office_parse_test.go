package sipua

import (
	"strings"
	"testing"
)

// TestLineStateRanking: the dialogs of one NOTIFY give the line: kamailio
// lists a finished call beside the next one, shows an idle line as one
// dummy terminated dialog, and may report Trying after early.
func TestLineStateRanking(t *testing.T) {
	doc := func(dialogs ...string) string {
		return `<?xml version="1.0"?><dialog-info xmlns="urn:ietf:params:xml:ns:dialog-info" version="1" state="full" entity="sip:bob@pbx">` +
			strings.Join(dialogs, "") + `</dialog-info>`
	}
	dl := func(state, dir, tags string) string {
		return `<dialog id="` + state + dir + `" call-id="cid" ` + tags + ` direction="` + dir + `"><state>` + state + `</state></dialog>`
	}
	tags := `local-tag="L" remote-tag="R"`
	for _, tc := range []struct {
		name, body, want string
		ring             bool
	}{
		{"no dialog", doc(), LineIdle, false},
		{"dummy terminated", doc(`<dialog id="x"><state>terminated</state></dialog>`), LineIdle, false},
		{"ringing in", doc(dl("early", "recipient", tags)), LineRinging, true},
		{"Trying (capitalised) in", doc(dl("Trying", "recipient", "")), LineRinging, true},
		{"dialling out", doc(dl("early", "initiator", tags)), LineBusy, false},
		{"talking", doc(dl("confirmed", "recipient", tags)), LineBusy, false},
		{"finished beside ringing", doc(dl("terminated", "recipient", tags), dl("early", "recipient", tags)), LineRinging, true},
		{"talking and a second call ringing", doc(dl("confirmed", "initiator", tags), dl("early", "recipient", tags)), LineRinging, true},
		{"finished beside talking", doc(dl("terminated", "recipient", tags), dl("confirmed", "recipient", tags)), LineBusy, false},
	} {
		d, err := parseDialogInfo([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, ring := d.lineState()
		if got != tc.want || (ring != nil) != tc.ring {
			t.Errorf("%s: %s (ring %v), want %s (ring %v)", tc.name, got, ring != nil, tc.want, tc.ring)
		}
	}
	d, _ := parseDialogInfo([]byte(doc(dl("early", "recipient", tags))))
	if _, ring := d.lineState(); ring.replaces() != "cid;to-tag=R;from-tag=L;early-only" {
		t.Errorf("Replaces %q", ring.replaces())
	}
	many := doc(strings.Repeat(dl("terminated", "recipient", tags), maxDialogs+10))
	if d, err := parseDialogInfo([]byte(many)); err != nil || len(d.Dialogs) != maxDialogs {
		t.Errorf("%d dialogs kept of %d (%v), want %d", len(d.Dialogs), maxDialogs+10, err, maxDialogs)
	}
	for _, bad := range []string{"", "<dialog-info", "<presence/>", `<!DOCTYPE x [<!ENTITY e "e">]><dialog-info><dialog><state>&e;</state></dialog></dialog-info>`} {
		if _, err := parseDialogInfo([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestPIDFValues: basic status and RPID activities give the presence
// values; the document the phone publishes reads back as what it says.
func TestPIDFValues(t *testing.T) {
	pres := func(inner string) string {
		return `<?xml version="1.0"?><presence xmlns="urn:ietf:params:xml:ns:pidf" xmlns:dm="urn:ietf:params:xml:ns:pidf:data-model" xmlns:rpid="urn:ietf:params:xml:ns:pidf:rpid" entity="sip:bob@pbx">` + inner + `</presence>`
	}
	tuple := func(b string) string { return `<tuple id="t"><status><basic>` + b + `</basic></status></tuple>` }
	person := func(a string) string {
		return `<dm:person id="p"><rpid:activities>` + a + `</rpid:activities></dm:person>`
	}
	for _, tc := range []struct{ name, body, want string }{
		{"open", pres(tuple("open")), PresenceAvailable},
		{"closed", pres(tuple("closed")), PresenceOffline},
		{"no tuple", pres(""), PresenceUnknown},
		{"away", pres(tuple("open") + person("<rpid:away/>")), PresenceAway},
		{"on the phone", pres(tuple("open") + person("<rpid:on-the-phone/>")), PresenceBusy},
		{"open and closed side by side", pres(tuple("closed") + tuple("open")), PresenceAvailable},
		{"other dnd", pres(tuple("open") + person("<rpid:other>dnd</rpid:other>")), PresenceDND},
		{"closed and busy", pres(tuple("closed") + person("<rpid:busy/>")), PresenceOffline},
	} {
		d, err := parsePIDF([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := d.value(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, v := range []string{PresenceAvailable, PresenceAway, PresenceBusy, PresenceDND, PresenceOffline} {
		d, err := parsePIDF(buildPIDF("sip:alice@pbx", v))
		if err != nil || d.value() != v {
			t.Errorf("published %s reads back as %s (%v)", v, d.value(), err)
		}
	}
	if b := string(buildPIDF(`sip:a"<b>@pbx`, PresenceAway)); strings.Contains(b, `a"<b>`) {
		t.Errorf("entity not escaped: %s", b)
	}
}

// TestMessageSummary: RFC 3842 bodies give new and old counts.
func TestMessageSummary(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Voicemail
		ok   bool
	}{
		{"Messages-Waiting: yes\r\nMessage-Account: sip:alice@pbx\r\nVoice-Message: 2/1\r\n", Voicemail{2, 1}, true},
		{"Messages-Waiting: yes\r\nVoice-Message: 4/8 (1/2)\r\n", Voicemail{4, 8}, true},
		{"Messages-Waiting: no\r\n", Voicemail{}, true},
		{"Messages-Waiting: yes\r\n", Voicemail{New: 1}, true},
		{"messages-waiting:no\nvoice-message: 0/3\n", Voicemail{0, 3}, true},
		{"Voice-Message: -1/2\r\n", Voicemail{}, false},
		{"hello", Voicemail{}, false},
		{"", Voicemail{}, false},
	} {
		got, ok := parseMessageSummary([]byte(tc.body))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: %+v %v, want %+v %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzOfficeBodies(f *testing.F) {
	f.Add([]byte(`<dialog-info><dialog id="a" direction="recipient"><state>early</state></dialog></dialog-info>`))
	f.Add([]byte(`<presence><tuple><status><basic>open</basic></status></tuple></presence>`))
	f.Add([]byte("Messages-Waiting: yes\r\nVoice-Message: 2/1\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := parseDialogInfo(b); err == nil {
			if s, _ := d.lineState(); s != LineIdle && s != LineRinging && s != LineBusy {
				t.Fatalf("line state %q", s)
			}
		}
		if d, err := parsePIDF(b); err == nil {
			_ = d.value()
		}
		if v, ok := parseMessageSummary(b); ok && (v.New < 0 || v.Old < 0) {
			t.Fatalf("negative counts %+v", v)
		}
	})
}
