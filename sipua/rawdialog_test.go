package sipua

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// rawCaller is a hand-written UDP caller for the in-dialog attacks: it
// places a call to the phone and then sends requests inside (or beside)
// that dialog, reading the phone's answers by transaction.
type rawCaller struct {
	*rawPeer
	t      *testing.T
	phone  *net.UDPAddr
	callID string
	ftag   string // ours (From)
	ttag   string // the phone's (To), from its first answer with one
	cseq   int
	invBr  string   // the branch of the first INVITE
	queue  []string // messages read while looking for another
	// mediaPort is the RTP port the caller's SDP offers (0: 40000, where
	// nothing listens).
	mediaPort int
}

// rawCallerPhone is a phone whose account's server is 127.0.0.1 (so the
// caller on 127.0.0.1 may ring it), with mods applied, and a caller.
func rawCallerPhone(t *testing.T, mods ...func(*store.Settings)) (*tphone, *rawCaller) {
	t.Helper()
	return rawCallerPhoneWith(t, nil, mods...)
}

// rawCallerPhoneWith is rawCallerPhone with changes to the phone's Config.
func rawCallerPhoneWith(t *testing.T, cfg []func(*Config), mods ...func(*store.Settings)) (*tphone, *rawCaller) {
	t.Helper()
	peer := newRawPeer(t)
	// The caller is the account's server too: calls the phone places
	// (a transfer) come to it. Its REGISTERs are left unanswered.
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	for _, m := range mods {
		m(&s)
	}
	p := startPhoneWith(t, s, secretMap{"account:" + acc.ID: ""}, nil, cfg...)
	return p, &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()},
		callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
}

func (r *rawCaller) write(msg string) {
	r.t.Helper()
	if _, err := r.conn.WriteToUDP([]byte(msg), r.phone); err != nil {
		r.t.Fatal(err)
	}
}

// request sends method with extra headers (each ending in CRLF) and an
// SDP body when sdp is set, in the dialog callID/ftag/toTag; it returns
// the Via branch.
func (r *rawCaller) request(method, callID, ftag, toTag string, cseq int, extra, body string) string {
	r.t.Helper()
	branch := "z9hG4bK" + uuid.NewString()[:10]
	to := "<sip:alice@127.0.0.1>"
	if toTag != "" {
		to += ";tag=" + toTag
	}
	msg := fmt.Sprintf("%s sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: \"Raw Caller\" <sip:4930123@127.0.0.1>;tag=%s\r\nTo: %s\r\nCall-ID: %s\r\nCSeq: %d %s\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\n%s",
		method, r.phone.Port, r.port(), branch, ftag, to, callID, cseq, method, r.port(), extra)
	if body != "" {
		msg += "Content-Type: application/sdp\r\n"
	}
	msg += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	r.write(msg)
	return branch
}

func rawSDP(port int, dir audio.Direction) string {
	return string(buildSDP("127.0.0.1", port, []audio.Codec{audio.CodecPCMU}, dir, 1, 1))
}

// invite starts the caller's call; the phone's To tag is read from its
// first answer that has one (180 or a final one).
func (r *rawCaller) invite(extra string) string {
	r.t.Helper()
	r.cseq = 1
	port := 40000
	if r.mediaPort != 0 {
		port = r.mediaPort
	}
	br := r.request("INVITE", r.callID, r.ftag, "", r.cseq, extra, rawSDP(port, audio.SendRecv))
	r.invBr = br
	for {
		res := r.response(br)
		if code := statusOf(res); code > 100 {
			r.ttag = tagOf(header(res, "To"))
			return res
		}
	}
}

// inDialog sends method inside the caller's dialog (the next CSeq).
func (r *rawCaller) inDialog(method, extra, body string) string {
	r.t.Helper()
	r.cseq++
	return r.request(method, r.callID, r.ftag, r.ttag, r.cseq, extra, body)
}

// ack acknowledges a final answer to the INVITE of transaction cseq: a
// 2xx with a new branch (branch ""), any other with the INVITE's.
func (r *rawCaller) ack(cseq int, branch string) {
	r.t.Helper()
	if branch == "" {
		branch = "z9hG4bK" + uuid.NewString()[:10]
	}
	r.write(fmt.Sprintf("ACK sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>;tag=%s\r\nCall-ID: %s\r\nCSeq: %d ACK\r\n"+
		"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n", r.phone.Port, r.port(), branch, r.ftag, r.ttag, r.callID, cseq))
}

// next reads the next message from the phone (queued ones first).
func (r *rawCaller) next(within time.Duration) (string, bool) {
	if len(r.queue) > 0 {
		m := r.queue[0]
		r.queue = r.queue[1:]
		return m, true
	}
	_ = r.conn.SetReadDeadline(time.Now().Add(within))
	n, _, err := r.conn.ReadFromUDP(r.buf)
	if err != nil {
		return "", false
	}
	return string(r.buf[:n]), true
}

// find returns the first message match takes within the time given,
// keeping the others for later; false when none came.
func (r *rawCaller) find(within time.Duration, match func(string) bool) (string, bool) {
	var keep []string
	defer func() { r.queue = append(keep, r.queue...) }()
	deadline := time.Now().Add(within)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return "", false
		}
		m, ok := r.next(left)
		if !ok {
			return "", false
		}
		if match(m) {
			return m, true
		}
		keep = append(keep, m)
	}
}

// response waits for the next answer of the transaction with branch.
func (r *rawCaller) response(branch string) string {
	r.t.Helper()
	m, ok := r.find(10*time.Second, func(m string) bool {
		return strings.HasPrefix(m, "SIP/2.0 ") && strings.Contains(header(m, "Via"), branch)
	})
	if !ok {
		r.t.Fatalf("no answer to %s", branch)
	}
	return m
}

// final waits for the final answer of the transaction with branch.
func (r *rawCaller) final(branch string) string {
	r.t.Helper()
	for {
		if m := r.response(branch); statusOf(m) >= 200 {
			return m
		}
	}
}

// requestFromPhone waits for a request of the phone with method.
func (r *rawCaller) requestFromPhone(method string, within time.Duration) (string, bool) {
	return r.find(within, func(m string) bool { return strings.HasPrefix(m, method+" ") })
}

// answer replies to a request of the phone, its To kept as it is (a
// request inside the dialog has our tag already).
func (r *rawCaller) answer(req, status, extra, body string) {
	r.t.Helper()
	res := "SIP/2.0 " + status + "\r\n"
	for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
		res += h + ": " + header(req, h) + "\r\n"
	}
	res += extra
	if body != "" {
		res += "Content-Type: application/sdp\r\n"
	}
	res += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	r.write(res)
}

func statusOf(res string) int {
	f := strings.Fields(res)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
