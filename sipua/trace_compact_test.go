package sipua

import (
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestTraceCompact: after compact the trace reads the same, its strings
// lie one after the other in a single allocation (none holds on to a span
// of its own), and the ring goes on taking and dropping messages.
func TestTraceCompact(t *testing.T) {
	var tr sipTrace
	tr.compact() // empty: nothing to do
	for i := 0; i < traceMaxEntries+20; i++ {
		tr.add(traceEntry{at: time.Unix(int64(i), 0), sent: i%2 == 0, transport: "UDP",
			laddr: "127.0.0.1:" + itoa(5060+i%3), raddr: "10.0.0." + itoa(i%250) + ":5060",
			text: redact([]byte("OPTIONS sip:x SIP/2.0\r\nCSeq: " + itoa(i) + " OPTIONS\r\n\r\n"))})
	}
	before, bytes := tr.String(), tr.bytes
	tr.compact()
	if got := tr.String(); got != before || tr.bytes != bytes {
		t.Fatalf("the trace changed in compact:\n%.300q\nwas\n%.300q", got, before)
	}
	next := uintptr(0)
	for i := 0; i < tr.n; i++ {
		e := &tr.ring[(tr.first+i)%traceMaxEntries]
		for _, s := range []string{e.transport, e.laddr, e.raddr, e.text} {
			p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			if next != 0 && p != next {
				t.Fatalf("entry %d: its strings are not where the one before ended (%x, want %x)", i, p, next)
			}
			next = p + uintptr(len(s))
		}
	}
	for i := 0; i < traceMaxEntries; i++ {
		tr.add(traceEntry{at: time.Now(), transport: "UDP", text: "BYE sip:y SIP/2.0\r\nCSeq: " + itoa(i) + " BYE\r\n\r\n"})
	}
	if s := tr.String(); strings.Contains(s, "OPTIONS") || !strings.Contains(s, "CSeq: 499 BYE") {
		t.Fatal("the compacted entries were not dropped in turn")
	}
}
