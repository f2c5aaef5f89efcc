package sipua

import (
	"net"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// presencePhone starts a phone with one presence-publishing account on
// pbx, answers its REGISTER and returns the phone's first PUBLISH
// unanswered, and where it came from.
func presencePhone(t *testing.T, pbx *rawPeer) (*tphone, string, *net.UDPAddr) {
	t.Helper()
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: pbx.port(), Transport: "udp",
		Enabled: true, ExpiryS: 60, Presence: true}
	p := startPhone(t, acc, "")
	reg, from := pbx.read(t, "REGISTER")
	pbx.reply(t, reg, from, "200 OK", "Contact: "+header(reg, "Contact")+";expires=60")
	pub, from := pbx.read(t, "PUBLISH")
	return p, pub, from
}

// awaitUnpublish reads until a PUBLISH with another CSeq than prev comes
// (retransmissions of prev are skipped), answers it and returns it.
// REGISTERs and unsubscribes are answered on the way.
func awaitUnpublish(t *testing.T, pbx *rawPeer, prev string) string {
	t.Helper()
	for {
		m, from := pbx.read(t, "")
		switch {
		case strings.HasPrefix(m, "PUBLISH") && header(m, "CSeq") != header(prev, "CSeq"):
			pbx.reply(t, m, from, "200 OK")
			return m
		case strings.HasPrefix(m, "SUBSCRIBE"):
			pbx.reply(t, m, from, "200 OK", "Expires: 0")
		case strings.HasPrefix(m, "REGISTER"):
			if header(m, "Expires") == "0" {
				t.Errorf("unregistered before removing the publication")
			}
			pbx.reply(t, m, from, "200 OK")
		}
	}
}

// TestUnpublishAfterPublishInFlight: a phone stopped while its first
// PUBLISH is unanswered still removes the publication when the answer
// comes within the grace: the server made it, and without the removal it
// would show the user reachable until it expires (RFC 3903 4.5). Before,
// the stop cut the PUBLISH short, the entity-tag was never read and no
// removal was sent (TestOfficeEndsAtShutdown failed so, 1 run in 8).
func TestUnpublishAfterPublishInFlight(t *testing.T) {
	pbx := newRawPeer(t)
	p, pub, pubFrom := presencePhone(t, pbx)
	p.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	n := &notifier{rawPeer: pbx, t: t}
	sub, from := pbx.read(t, "SUBSCRIBE")
	n.answer(sub, from, 60)
	p.stop()
	// The unsubscribe shows the stop has begun (the office stops its
	// subscriptions and publications together); only then the PUBLISH is
	// answered.
	for {
		m, from := pbx.read(t, "SUBSCRIBE")
		n.answer(m, from, 0)
		if header(m, "Expires") == "0" {
			break
		}
	}
	pbx.reply(t, pub, pubFrom, "200 OK", "SIP-ETag: e1", "Expires: 60")
	un := awaitUnpublish(t, pbx, pub)
	if header(un, "Expires") != "0" || header(un, "SIP-If-Match") != "e1" {
		t.Errorf("not the removal of e1:\n%s", un)
	}
}

// TestUnpublishAfterModifyCutShort: a status change whose PUBLISH is never
// answered before the phone stops keeps the entity-tag: the removal names
// it. Before, the unanswered modification counted as a 412 (RFC 3903 6.3),
// the tag was dropped and a new publication started instead of a removal.
func TestUnpublishAfterModifyCutShort(t *testing.T) {
	pbx := newRawPeer(t)
	p, pub, from := presencePhone(t, pbx)
	pbx.reply(t, pub, from, "200 OK", "SIP-ETag: e1", "Expires: 60")
	s := p.settingsNow()
	s.SIP.PresenceStatus = PresenceAway
	p.Apply(s)
	mod, _ := pbx.read(t, "PUBLISH")
	if header(mod, "SIP-If-Match") != "e1" || !strings.Contains(mod, "<rpid:away/>") {
		t.Fatalf("modification:\n%s", mod)
	}
	p.stop() // the modification stays unanswered
	un := awaitUnpublish(t, pbx, mod)
	if header(un, "Expires") != "0" || header(un, "SIP-If-Match") != "e1" {
		t.Errorf("not the removal of e1:\n%s", un)
	}
}
