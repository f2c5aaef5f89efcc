package sipua

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// farPeer is a UDP socket at 10.77.0.2 in a network namespace of its own,
// joined to this one (10.77.0.1) by a veth: a peer that is not on this
// machine. The test's namespace must hold loopback only (unshare -n).
func farPeer(t *testing.T) *rawPeer {
	t.Helper()
	testpeer.Require(t, "ip")
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			t.Skipf("needs a namespace with loopback only (unshare -n); found %s", i.Name)
		}
	}
	ns := fmt.Sprintf("sp%d-far", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", "sdp-l0").Run()
		_ = exec.Command("ip", "netns", "del", ns).Run()
	})
	run("ip", "netns", "add", ns)
	run("ip", "link", "add", "sdp-l0", "type", "veth", "peer", "name", "sdp-f0", "netns", ns)
	run("ip", "addr", "add", "10.77.0.1/24", "dev", "sdp-l0")
	run("ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", "sdp-f0")
	run("ip", "link", "set", "sdp-l0", "up")
	run("ip", "-n", ns, "link", "set", "sdp-f0", "up")

	// A socket belongs to the namespace of the thread that makes it.
	runtime.LockOSThread()
	here, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	defer here.Close()
	far, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	defer far.Close()
	if err := unix.Setns(int(far.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	c, lerr := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(10, 77, 0, 2)})
	if err := unix.Setns(int(here.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatal(err) // the thread stays locked and ends with the test's goroutine
	}
	runtime.UnlockOSThread()
	if lerr != nil {
		t.Fatal(lerr)
	}
	t.Cleanup(func() { c.Close() })
	return &rawPeer{conn: c, buf: make([]byte, 65535)}
}

// TestOfferPointingMediaAtThisMachine: a caller elsewhere (10.77.0.2) whose
// offer sends our RTP to 127.0.0.1 (a local service's port) or to a
// multicast group is refused with 488 (RFC 3261 21.4.26) before ringing;
// the same offer naming its own address rings. Offers from peers on this
// machine naming 127.0.0.1 are taken as before (every other test).
func TestOfferPointingMediaAtThisMachine(t *testing.T) {
	peer := farPeer(t)
	server := newRawPeer(t) // the account's registrar; its REGISTERs go unanswered
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: server.port(), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "", func(s *store.Settings) {
		s.SIP.Listen = "10.77.0.1:0"
		s.SIP.AcceptCallsFrom = store.AcceptFromAnyone
	})
	for _, tc := range []struct {
		name, ip string
		want     int
	}{
		{"the caller itself", "10.77.0.2", 180},
		{"loopback", "127.0.0.1", 488},
		{"loopback elsewhere in 127/8", "127.3.2.1", 488},
		{"multicast", "224.0.0.251", 488},
		{"this machine's own address", "10.77.0.1", 488},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(10, 77, 0, 1), Port: p.stackPort()},
				callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
			sdp := string(buildSDP(tc.ip, 53, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1))
			br := r.request("INVITE", r.callID, r.ftag, "", 1, "", sdp)
			var res string
			for res = r.response(br); statusOf(res) == 100; res = r.response(br) {
			}
			if statusOf(res) != tc.want {
				t.Fatalf("offer with c=%s answered %q, want %d", tc.ip, strings.SplitN(res, "\r\n", 2)[0], tc.want)
			}
			if tc.want >= 300 {
				r.ack(1, br)
				return
			}
			e := p.wait("the call ringing", 5*time.Second, func(e Event) bool { return e.Kind == EventCallStarted })
			must(t, p.Hangup(bg, e.Call.ID))
			if fin := r.final(br); statusOf(fin) < 400 {
				t.Fatalf("hung up while ringing: INVITE answered %q", strings.SplitN(fin, "\r\n", 2)[0])
			}
			r.ack(1, br)
		})
	}
}

// TestReinviteAndAnswerPointingMediaAtThisMachine: inside a call with a
// peer elsewhere, a re-INVITE moving our media to 127.0.0.1 gets 488 and
// the call stays; the answer of such a peer to our INVITE naming
// 127.0.0.1 ends the call (confirmed with ACK, then BYE) as one without
// usable media.
func TestReinviteAndAnswerPointingMediaAtThisMachine(t *testing.T) {
	peer := farPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "10.77.0.2", Port: peer.port(), Transport: "udp", Enabled: true, ExpiryS: 3600}
	p := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "10.77.0.1:0", AutoAnswer: true}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "pw"}, nil)
	reg, from := peer.read(t, "REGISTER")
	peer.reply(t, reg, from, "200 OK")
	sdpAt := func(ip string) string {
		return string(buildSDP(ip, 40000, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1))
	}

	t.Run("re-INVITE", func(t *testing.T) {
		r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(10, 77, 0, 1), Port: p.stackPort()},
			callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
		br := r.request("INVITE", r.callID, r.ftag, "", 1, "", sdpAt("10.77.0.2"))
		res := r.final(br)
		if statusOf(res) != 200 {
			t.Fatalf("auto-answer: %.40q", res)
		}
		r.ttag, r.cseq = tagOf(header(res, "To")), 1
		r.ack(1, "")
		c := p.waitState("", StateActive, 5*time.Second)
		br = r.inDialog("INVITE", "", sdpAt("127.0.0.1"))
		if res := r.final(br); statusOf(res) != 488 {
			t.Fatalf("re-INVITE to 127.0.0.1 answered %.40q, want 488", res)
		}
		r.ack(2, br)
		// The call stayed: the caller's BYE ends it (the caller's Contact
		// names 127.0.0.1, where the phone's own BYE would not reach it).
		if res := r.final(r.inDialog("BYE", "", "")); statusOf(res) != 200 {
			t.Fatalf("BYE answered %.40q: the call did not stay", res)
		}
		p.waitState(c.ID, StateEnded, 5*time.Second)
	})

	t.Run("answer", func(t *testing.T) {
		c, err := p.Dial(bg, "123", "")
		must(t, err)
		inv, from := peer.read(t, "INVITE")
		body := sdpAt("127.0.0.1")
		res := "SIP/2.0 200 OK\r\n"
		for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
			res += h + ": " + header(inv, h) + "\r\n"
		}
		res += "To: " + header(inv, "To") + ";tag=peer\r\nContact: <sip:123@10.77.0.2:" + itoa(peer.port()) + ">\r\n" +
			"Content-Type: application/sdp\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
		_, err = peer.conn.WriteToUDP([]byte(res), from)
		must(t, err)
		peer.read(t, "ACK")
		ended := p.waitState(c.ID, StateEnded, 5*time.Second)
		if ended.Reason != ReasonFailed || ended.Outcome != OutcomeFailed {
			t.Fatalf("ended %s/%s, want failed/failed", ended.Reason, ended.Outcome)
		}
		bye, bfrom := peer.read(t, "BYE")
		peer.reply(t, bye, bfrom, "200 OK")
	})
}
