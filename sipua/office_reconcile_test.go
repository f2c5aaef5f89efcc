package sipua

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// subKeys lists the office's running subscriptions and the ones the
// watched list asks for (dialog subscriptions: presence is off).
func (o *office) subKeys() (running, wanted []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.subs {
		running = append(running, k)
	}
	for _, w := range o.watched {
		wanted = append(wanted, "dialog|"+w.ContactID)
	}
	sort.Strings(running)
	sort.Strings(wanted)
	return running, wanted
}

// TestReconcileNotStale: changes of the watched list from several
// goroutines at once end with the subscriptions of the list that was set
// last. Before, a reconcile could apply the list it had read after a
// later one had applied a newer list, leaving subscriptions of contacts no
// longer watched and none for those watched (reconciles are serialized
// now).
func TestReconcileNotStale(t *testing.T) {
	pbx := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: pbx.port(), Transport: "udp", Enabled: true, ExpiryS: 60}
	p := startPhone(t, acc, "")
	reg, from := pbx.read(t, "REGISTER")
	pbx.reply(t, reg, from, "200 OK", "Contact: "+header(reg, "Contact")+";expires=60")
	p.waitRegistered()
	go pbx.answerAll()
	lists := [][]Watched{{{ContactID: "c-bob", Number: "bob"}}, {{ContactID: "c-carol", Number: "carol"}},
		{{ContactID: "c-dave", Number: "dave"}, {ContactID: "c-bob", Number: "bob"}}}
	for i := range 200 {
		var wg sync.WaitGroup
		for _, l := range lists {
			wg.Add(1)
			go func() { defer wg.Done(); p.SetWatched(l) }()
		}
		wg.Wait()
		running, wanted := p.office.subKeys()
		if strings.Join(running, " ") != strings.Join(wanted, " ") {
			t.Fatalf("round %d: subscriptions %v, watched %v", i, running, wanted)
		}
	}
}
