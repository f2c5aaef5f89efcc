package sipua

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
)

// TestTraceOfTwoPhonesThroughSipgosSocket: with two phones in one process
// (a test's phones, or the old and new stack of a settings change), a
// request sipgo sends on a connection it opens itself and the answer read
// on it are in the sending phone's trace, not in the other's. The trace
// took a message by the listener's address only, so both vanished from
// every trace. Over UDP every request now leaves from the listener
// (fromListener); over TCP a request to a far end's Contact, a BYE here,
// goes on a connection sipgo dials from a new port.
func TestTraceOfTwoPhonesThroughSipgosSocket(t *testing.T) {
	other, _ := rawCallerPhone(t)
	p, _ := rawCallerPhone(t, autoAnswer)
	contact, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer contact.Close()
	cport := contact.Addr().(*net.TCPAddr).Port

	p.mu.Lock()
	tcpPort := p.stack.tcpPort
	p.mu.Unlock()
	caller, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(tcpPort))
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	lport := caller.LocalAddr().(*net.TCPAddr).Port
	callID, ftag := uuid.NewString(), "c"+uuid.NewString()[:8]
	body := rawSDP(40000, audio.SendRecv)
	fmt.Fprintf(caller, "INVITE sip:alice@127.0.0.1:%d;transport=tcp SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d;transport=tcp>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
		tcpPort, lport, uuid.NewString()[:10], ftag, callID, cport, len(body), body)
	in := bufio.NewReader(caller)
	var ok string
	for !strings.HasPrefix(ok, "SIP/2.0 200") {
		if ok = readTCPMessage(t, caller, in); ok == "" {
			t.Fatal("the call was not answered")
		}
	}
	fmt.Fprintf(caller, "ACK sip:alice@127.0.0.1:%d;transport=tcp SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: %s\r\nCall-ID: %s\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n",
		tcpPort, lport, uuid.NewString()[:10], ftag, header(ok, "To"), callID)
	c := p.waitState("", StateActive, 5*time.Second)

	hung := make(chan error, 1)
	go func() { hung <- p.Hangup(bg, c.ID) }()
	_ = contact.SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := contact.Accept()
	if err != nil {
		t.Fatalf("no connection to the Contact for the BYE: %v", err)
	}
	defer conn.Close()
	from := conn.RemoteAddr().(*net.TCPAddr)
	if from.Port == tcpPort {
		t.Fatalf("the BYE's connection came from the phone's listener port (%v): the test proves nothing", from)
	}
	bye := readTCPMessage(t, conn, bufio.NewReader(conn))
	if !strings.HasPrefix(bye, "BYE ") {
		t.Fatalf("on the Contact's connection: %.60q", bye)
	}
	res := "SIP/2.0 200 OK\r\n"
	for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
		res += h + ": " + header(bye, h) + "\r\n"
	}
	if _, err := conn.Write([]byte(res + "Content-Length: 0\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := <-hung; err != nil {
		t.Fatal(err)
	}
	sent := fmt.Sprintf(" sent TCP %s -> 127.0.0.1:%d ===\nBYE ", from, cport)
	read := fmt.Sprintf(" received TCP %s <- 127.0.0.1:%d ===\nSIP/2.0 200 OK", from, cport)
	inTrace := func() bool {
		tr := p.SIPTrace()
		return strings.Contains(tr, sent) && strings.Contains(tr, read)
	}
	if !testpeer.WaitFor(3*time.Second, inTrace) {
		t.Fatalf("the BYE on sipgo's connection (%v) and its 200 are not both in the phone's trace:\n%s", from, tail(p.SIPTrace()))
	}
	if tr := other.SIPTrace(); strings.Contains(tr, callID) {
		t.Fatalf("the other phone's trace has this call:\n%s", tail(tr))
	}
}

// readTCPMessage reads one SIP message from a stream (its headers, then
// Content-Length bytes); "" when none comes within 10 s.
func readTCPMessage(t *testing.T, c net.Conn, r *bufio.Reader) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	tp := textproto.NewReader(r)
	var b strings.Builder
	n := 0
	for {
		l, err := tp.ReadLine()
		if err != nil {
			return ""
		}
		b.WriteString(l + "\r\n")
		if l == "" {
			break
		}
		if k, v, ok := strings.Cut(l, ":"); ok && (strings.EqualFold(k, "Content-Length") || k == "l") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return ""
	}
	return b.String() + string(body)
}
