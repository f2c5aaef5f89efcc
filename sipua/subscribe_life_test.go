package sipua

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// TestOfficeEndsAtShutdown: stopping the phone ends its subscriptions
// (Expires: 0 in their dialogs) and removes its presence publication
// (PUBLISH Expires: 0 with SIP-If-Match, RFC 3903 4.5) before it
// unregisters.
func TestOfficeEndsAtShutdown(t *testing.T) {
	pbx := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: pbx.port(), Transport: "udp",
		Enabled: true, ExpiryS: 60, Presence: true}
	p := startPhone(t, acc, "", func(s *store.Settings) { s.SIP.PresenceStatus = PresenceAway })
	reg, from := pbx.read(t, "REGISTER")
	pbx.reply(t, reg, from, "200 OK", "Contact: "+header(reg, "Contact")+";expires=60")
	pub, from := pbx.read(t, "PUBLISH")
	if header(pub, "Event") != "presence" || header(pub, "Content-Type") != "application/pidf+xml" || !strings.Contains(pub, "<rpid:away/>") {
		t.Fatalf("PUBLISH:\n%s", pub)
	}
	pbx.reply(t, pub, from, "200 OK", "SIP-ETag: e1", "Expires: 60")
	// Watched with presence on: a dialog and a presence subscription.
	p.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	n := &notifier{rawPeer: pbx, t: t}
	subs := map[string]string{} // event -> first SUBSCRIBE
	for len(subs) < 2 {
		m, from := pbx.read(t, "SUBSCRIBE")
		n.answer(m, from, 60)
		if _, seen := subs[header(m, "Event")]; !seen {
			subs[header(m, "Event")] = m
		}
	}

	p.stop()
	unsubs := map[string]string{}
	var unpub string
	for len(unsubs) < 2 || unpub == "" {
		m, from := pbx.read(t, "")
		switch {
		case strings.HasPrefix(m, "SUBSCRIBE") && header(m, "Expires") != "0":
			n.answer(m, from, 60) // a retransmission of a first one
		case strings.HasPrefix(m, "SUBSCRIBE"):
			unsubs[header(m, "Event")] = m
			n.answer(m, from, 0)
		case strings.HasPrefix(m, "PUBLISH"):
			unpub = m
			pbx.reply(t, m, from, "200 OK")
		case strings.HasPrefix(m, "REGISTER"):
			// Expires 0 is the unregister; others are retransmissions of the first.
			if header(m, "Expires") == "0" && (len(unsubs) < 2 || unpub == "") {
				t.Errorf("unregistered before ending the subscriptions and the publication")
			}
			pbx.reply(t, m, from, "200 OK")
		}
	}
	for ev, sub := range subs {
		un := unsubs[ev]
		if header(un, "Expires") != "0" || header(un, "Call-ID") != header(sub, "Call-ID") || tagOf(header(un, "To")) != "peer" {
			t.Errorf("%s unsubscribe:\n%s", ev, un)
		}
	}
	if header(unpub, "Expires") != "0" || header(unpub, "SIP-If-Match") != "e1" || header(unpub, "Content-Length") != "0" {
		t.Errorf("unpublish:\n%s", unpub)
	}
}

// TestResubscribeAfterReregistration: a registration that succeeds after a
// failed one makes the account's subscriptions again in new dialogs (the
// PBX may have lost them with the registration).
func TestResubscribeAfterReregistration(t *testing.T) {
	pbx := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: pbx.port(), Transport: "udp", Enabled: true, ExpiryS: 60}
	p := startPhone(t, acc, "")
	reg, from := pbx.read(t, "REGISTER")
	pbx.reply(t, reg, from, "200 OK", "Contact: "+header(reg, "Contact")+";expires=1") // refresh in 0.8 s
	p.waitRegistered()
	p.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	n := &notifier{rawPeer: pbx, t: t}
	sub, from := pbx.read(t, "SUBSCRIBE")
	n.answer(sub, from, 60)
	reg, from = pbx.read(t, "REGISTER")
	pbx.reply(t, reg, from, "503 Service Unavailable")
	reg, from = pbx.read(t, "REGISTER") // after the backoff
	pbx.reply(t, reg, from, "200 OK", "Contact: "+header(reg, "Contact")+";expires=60")
	again, from := pbx.read(t, "SUBSCRIBE")
	if header(again, "Call-ID") == header(sub, "Call-ID") || strings.Contains(header(again, "To"), "tag=") || header(again, "Expires") == "0" {
		t.Errorf("after re-registration, not a new subscription:\n%s", again)
	}
	n.answer(again, from, 60)
	go pbx.answerAll() // the unsubscribe and unregister when the test ends
}

// answerAll answers every SUBSCRIBE and REGISTER until the socket closes.
func (r *rawPeer) answerAll() {
	buf := make([]byte, 65535)
	for {
		_ = r.conn.SetReadDeadline(time.Time{})
		k, from, err := r.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		m := string(buf[:k])
		if strings.HasPrefix(m, "SUBSCRIBE") || strings.HasPrefix(m, "REGISTER") {
			res := "SIP/2.0 200 OK\r\n"
			for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
				res += h + ": " + header(m, h) + "\r\n"
			}
			_, _ = r.conn.WriteToUDP([]byte(res+"Expires: 0\r\nContent-Length: 0\r\n\r\n"), from)
		}
	}
}
