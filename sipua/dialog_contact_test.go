package sipua

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
)

// contactUserOf is the user part of a message's Contact.
func contactUserOf(msg string) string {
	ct := header(msg, "Contact")
	if i := strings.Index(ct, "sip:"); i >= 0 {
		ct = ct[i+4:]
	}
	if i := strings.Index(ct, "@"); i >= 0 {
		return ct[:i]
	}
	return ""
}

// TestDialogContactKeepsTheSecret: with sip.accept_calls_from servers, the
// Contact user an account registers lets calls in from any address (a
// provider's other edges), so only the registrar may learn it. It went in
// every INVITE and 200 too, so any far end (a caller through the
// provider, a host a sip: link on a web page had the phone call) learnt it
// and could ring the phone directly from anywhere, auto-answered with
// sip.auto_answer, for as long as the account exists. Now the Contact of
// calls carries the account's user name; the far end's INVITE to it from
// another host gets 403, while the registered Contact still rings.
func TestDialogContactKeepsTheSecret(t *testing.T) {
	p, r := rawCallerPhone(t, autoAnswer)
	p.mu.Lock()
	secret := p.lines[p.acc.ID].contactUser
	p.mu.Unlock()

	// Our answer to a call through the server.
	res := r.invite("")
	if statusOf(res) != 200 {
		t.Fatalf("auto-answer: %.40q", res)
	}
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	learnt := contactUserOf(res)
	if learnt == "" || learnt == secret {
		t.Fatalf("our 200's Contact user %q (the registered one: %q)", learnt, secret)
	}
	// A call we place (the caller is the account's server too).
	go func() { _, _ = p.Dial(bg, "bob", "") }()
	inv, ok := r.requestFromPhone("INVITE", 5*time.Second)
	if !ok {
		t.Fatal("no INVITE for the call placed")
	}
	if u := contactUserOf(inv); u == secret {
		t.Fatalf("our INVITE's Contact carries the registered user %q", u)
	}
	r.answer(inv, "486 Busy Here", "", "")

	// The far end, from another address, calls what it learnt: refused.
	// The registered Contact user still rings from there.
	stranger, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2)})
	must(t, err)
	defer stranger.Close()
	var last, lastRes string // the stranger's last request, the last final answer it got
	sendWith := func(user, extra, body string) string {
		t.Helper()
		br := "z9hG4bK" + uuid.NewString()[:10]
		if body != "" {
			extra += "Content-Type: application/sdp\r\n"
		}
		last = fmt.Sprintf("INVITE sip:%s@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP %s;branch=%s\r\n"+
			"From: <sip:x@127.0.0.2>;tag=s%s\r\nTo: <sip:%s@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
			"Contact: <sip:x@%s>\r\nMax-Forwards: 70\r\n%sContent-Length: %d\r\n\r\n%s",
			user, r.phone.Port, stranger.LocalAddr(), br, uuid.NewString()[:8], user, uuid.NewString(), stranger.LocalAddr(),
			extra, len(body), body)
		_, err := stranger.WriteToUDP([]byte(last), r.phone)
		must(t, err)
		return br
	}
	send := func(user string) string { t.Helper(); return sendWith(user, "", "") }
	final := func(br string) int {
		t.Helper()
		buf := make([]byte, 8192)
		for {
			_ = stranger.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, err := stranger.Read(buf)
			must(t, err)
			if m := string(buf[:n]); strings.Contains(m, br) && statusOf(m) >= 200 {
				lastRes = m
				return statusOf(m)
			}
		}
	}
	invite := func(user string) int { t.Helper(); return final(send(user)) }
	before := p.RefusedRequests()
	if code := invite(learnt); code != 403 {
		t.Fatalf("the far end's INVITE to the Contact user it learnt answered %d, want 403", code)
	}
	if p.RefusedRequests() != before+1 {
		t.Fatal("the refusal was not counted")
	}
	if _, ok := p.Call(c.ID); !ok || len(p.Calls()) != 1 {
		t.Fatalf("calls: %+v", p.Calls())
	}
	s := p.settingsNow()
	s.SIP.AutoAnswer = false
	p.Apply(s)
	br := send(secret)
	rung := p.waitState("", StateRingingIn, 5*time.Second)
	must(t, p.Decline(bg, rung.ID))
	if code := final(br); code != 603 {
		t.Fatalf("the INVITE to the registered Contact user answered %d", code)
	}

	// An attended transfer whose transferee reaches us directly at the
	// Contact it was given (our user name now): its INVITE names our
	// connected call in Replaces, whose dialog only its parties know
	// (RFC 3891 6), and replaces it.
	repl := r.callID + ";to-tag=" + r.ttag + ";from-tag=" + r.ftag
	br = sendWith(learnt, "Replaces: "+repl+"\r\n", rawSDP(40002, audio.SendRecv))
	if code := final(br); code != 200 {
		t.Fatalf("the transferee's INVITE with Replaces from another host answered %d, want 200", code)
	}
	if bye, ok := r.requestFromPhone("BYE", 5*time.Second); !ok {
		t.Fatal("the replaced call was not hung up")
	} else {
		r.answer(bye, "200 OK", "", "")
	}
	nc := p.waitState("", StateActive, 5*time.Second)
	ack := strings.Replace(strings.Replace(last, "INVITE sip:", "ACK sip:", 1), "CSeq: 1 INVITE", "CSeq: 1 ACK", 1)
	ack = strings.Replace(ack, "\r\nTo: "+header(last, "To")+"\r\n", "\r\nTo: "+header(lastRes, "To")+"\r\n", 1)
	ack = strings.Replace(ack, "branch=z9hG4bK", "branch=z9hG4bKa", 1)
	ack = ack[:strings.Index(ack, "Content-Type")] + "Content-Length: 0\r\n\r\n"
	_, err = stranger.WriteToUDP([]byte(ack), r.phone)
	must(t, err)
	must(t, p.Hangup(bg, nc.ID))
	buf := make([]byte, 8192)
	for { // the BYE answered, so the phone's stop does not wait for it
		_ = stranger.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, from, err := stranger.ReadFromUDP(buf)
		must(t, err)
		if bye := string(buf[:n]); strings.HasPrefix(bye, "BYE ") {
			res := "SIP/2.0 200 OK\r\n"
			for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
				res += h + ": " + header(bye, h) + "\r\n"
			}
			_, err = stranger.WriteToUDP([]byte(res+"Content-Length: 0\r\n\r\n"), from)
			must(t, err)
			return
		}
	}
}
