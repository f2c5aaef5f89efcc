package webhook

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/softphone/softphone/sipua"
)

// TestHugeAnswerHeaderRefusedCheaply: a receiver (a broken proxy, a hostile
// host) answers 200 with 8 MiB of header lines. The sender reads at most
// 64 KiB of an answer's header, so the attempt fails (counted, retried as
// any failure) without taking the answer into memory; before, the
// transport's default took up to 10 MiB per answer, eight deliveries at
// once, on a phone that otherwise lives in 15 MB.
func TestHugeAnswerHeaderRefusedCheaply(t *testing.T) {
	var big bytes.Buffer
	big.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n")
	line := "X-Padding: " + strings.Repeat("a", 1000) + "\r\n"
	for big.Len() < 8<<20 {
		big.WriteString(line)
	}
	big.WriteString("\r\n")
	answer := big.Bytes()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	requests := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				requests <- struct{}{}
				_, _ = c.Write(answer)
			}()
		}
	}()

	r := newRig(t, settingsFor("http://"+ln.Addr().String()+"/hook", "POST"), nil)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	newCall(r.bus, sipua.DirIn, "5")
	<-requests
	eventually(t, "the first attempt's outcome", func() bool { return r.cnt.delivered.Load()+r.cnt.failed.Load() >= 1 })
	r.stop()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	took := after.TotalAlloc - before.TotalAlloc
	t.Logf("figures: %d KiB allocated for an answer with an 8 MiB header", took>>10)
	if r.cnt.delivered.Load() != 0 {
		t.Errorf("an answer with an 8 MiB header counted as delivered")
	}
	if took > 2<<20 {
		t.Errorf("the sender allocated %d KiB for one answer's header", took>>10)
	}
}
