package sipua

import (
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

func TestTraceRingBoundsAndRedaction(t *testing.T) {
	var tr sipTrace
	for i := 0; i < 600; i++ {
		tr.add(traceEntry{at: time.Now(), sent: i%2 == 0, transport: "UDP", laddr: "a", raddr: "b", text: "OPTIONS sip:x SIP/2.0\r\nCSeq: " + itoa(i) + " OPTIONS\r\n\r\n"})
	}
	s := tr.String()
	if n := strings.Count(s, "OPTIONS sip:x"); n != traceMaxEntries || strings.Contains(s, "CSeq: 99 OPTIONS") || !strings.Contains(s, "CSeq: 599 OPTIONS") {
		t.Fatalf("%d entries kept", n)
	}
	// A full ring takes a message without allocating: the trace sees every
	// SIP message, so garbage here is paid on every call.
	e := traceEntry{at: time.Now(), transport: "UDP", text: "OPTIONS sip:x SIP/2.0\r\n\r\n"}
	if n := testing.AllocsPerRun(100, func() { tr.add(e) }); n != 0 {
		t.Fatalf("adding to a full trace allocates %v times", n)
	}
	big := strings.Repeat("x", 300<<10)
	for i := 0; i < 5; i++ {
		tr.add(traceEntry{at: time.Now(), text: redact([]byte(big))})
	}
	if tr.bytes > traceMaxBytes || len(tr.String()) > traceMaxBytes+tr.len()*200 {
		t.Fatalf("trace holds %d bytes", tr.bytes)
	}
	if !containsFold("x\r\nPROXY-Authorization: y", "authorization") || containsFold("Authorizatio", "authorization") {
		t.Fatal("containsFold")
	}
	msg := "BYE sip:b@h SIP/2.0\r\nproxy-authorization: Digest username=\"al,ice\", realm=\"r\", nonce=\"n\", uri=\"sip:b@h\", response=\"0123abcd\", algorithm=MD5\r\n\r\n"
	got := redact([]byte(msg))
	want := "BYE sip:b@h SIP/2.0\r\nproxy-authorization: Digest username=\"al,ice\", realm=\"r\", uri=\"sip:b@h\", [redacted]\r\n\r\n"
	if got != want {
		t.Fatalf("redacted:\n%q\nwant\n%q", got, want)
	}
	if !reflect.DeepEqual(splitParams(`a="x,y", b=c`), []string{`a="x,y"`, ` b=c`}) {
		t.Fatal(splitParams(`a="x,y", b=c`))
	}
}

// TestNoteProvisional: a 180/183 read off the wire marks its outgoing call,
// also in a TCP read that holds several messages and with compact headers.
func TestNoteProvisional(t *testing.T) {
	a, b, c := &atomic.Bool{}, &atomic.Bool{}, &atomic.Bool{}
	ringSeen.Store("call-a", a)
	ringSeen.Store("call-b", b)
	ringSeen.Store("call-c", c)
	defer func() {
		for _, k := range []string{"call-a", "call-b", "call-c"} {
			ringSeen.Delete(k)
		}
	}()
	noteProvisional([]byte("SIP/2.0 100 Trying\r\nCall-ID: call-c\r\n\r\n" +
		"SIP/2.0 180 Ringing\r\nVia: SIP/2.0/TCP x\r\ni: call-a\r\nContent-Length: 0\r\n\r\n" +
		"SIP/2.0 181 Call Is Being Forwarded\r\nCall-ID: call-c\r\n\r\n" +
		"SIP/2.0 183 Session Progress\r\ncall-id:  call-b \r\nContent-Length: 3\r\n\r\nabc"))
	if !a.Load() || !b.Load() || c.Load() {
		t.Fatalf("seen a=%v b=%v c=%v, want true true false", a.Load(), b.Load(), c.Load())
	}
}

// TestTraceOfTwoPhones: with two phones in one process each trace holds
// only its own traffic (UDP by the listener, TCP by the connection).
func TestTraceOfTwoPhones(t *testing.T) {
	kam := testpeer.Kamailio(t)
	a := startPhone(t, account(kam, "alice", "tcp"), "alicepw")
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw")
	a.waitRegistered()
	b.waitRegistered()
	at, bt := a.SIPTrace(), b.SIPTrace()
	for _, c := range []struct {
		name, trace, own, other, transport string
	}{{"alice", at, "From: \"alice\" <sip:alice@", "From: \"bob\" <sip:bob@", " TCP "}, {"bob", bt, "From: \"bob\" <sip:bob@", "From: \"alice\" <sip:alice@", " UDP "}} {
		if !strings.Contains(c.trace, "REGISTER sip:127.0.0.1") || !strings.Contains(c.trace, "SIP/2.0 200 OK") ||
			!strings.Contains(c.trace, " received"+c.transport) || !strings.Contains(c.trace, " sent"+c.transport) {
			t.Fatalf("%s's trace lacks its registration:\n%s", c.name, c.trace)
		}
		if strings.Contains(c.trace, c.other) {
			t.Fatalf("%s's trace has the other phone's messages:\n%s", c.name, c.trace)
		}
	}
}
