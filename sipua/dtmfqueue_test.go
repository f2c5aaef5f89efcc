package sipua

import (
	"runtime"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// The media reader reports the far end's RFC 4733 digits, several at once
// when one RTP packet carries several events. They must be published in
// the order sent, and a peer flooding events must not pile up goroutines
// while the call's goroutine is busy (here: not yet running).
func TestDTMFInOrderAndFloodBounded(t *testing.T) {
	p, err := New(Config{Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	sub := p.bus.Subscribe(64, true)
	defer sub.Close()
	c := p.newCall(&line{p: p, acc: store.Account{ID: "acc"}}, DirIn, "")
	c.c.State = StateActive

	const sent = "0123456789*#ABCD"
	before := runtime.NumGoroutine()
	for i := range len(sent) {
		c.onDTMF(sent[i])
	}
	for range 10000 {
		c.onDTMF('5')
	}
	if n := runtime.NumGoroutine() - before; n > 10 {
		t.Errorf("a flood of 10000 DTMF events left %d more goroutines", n)
	}

	p.wg.Add(1)
	go c.run()
	var got []byte
	timeout := time.After(5 * time.Second)
	for len(got) < len(sent) {
		select {
		case e := <-sub.C():
			if e.Kind == EventDTMF {
				got = append(got, e.Digit[0])
			}
		case <-timeout:
			t.Fatalf("digits published: %q", got)
		}
	}
	if string(got) != sent {
		t.Errorf("digits published as %q, sent %q", got, sent)
	}
	c.post(func() { c.c.State = StateEnded })
	<-c.done
}
