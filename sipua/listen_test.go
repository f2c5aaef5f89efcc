package sipua

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// holdPort takes UDP and TCP of a free port on 127.0.0.1 for the test, as
// another softphone or a local PBX on 5060 would.
func holdPort(t *testing.T) int {
	t.Helper()
	port := testpeer.FreeSIPPort(t)
	u, err := net.ListenPacket("udp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close(); l.Close() })
	return port
}

// TestListenPortTakenMovesAndRegisters: with sip.listen's port held by
// another program, both listeners take another free port, the phone says
// so (ListenStates), and accounts on UDP and TCP register at kamailio with
// a Contact naming the port the phone really has.
func TestListenPortTakenMovesAndRegisters(t *testing.T) {
	kam := testpeer.Kamailio(t)
	port := holdPort(t)
	udp, tcp := account(kam, "alice", "udp"), account(kam, "bob", "tcp")
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:" + strconv.Itoa(port)}, Accounts: []store.Account{udp, tcp}}
	p := startPhoneWith(t, s, secretMap{"account:" + udp.ID: "alicepw", "account:" + tcp.ID: "bobpw"}, nil)
	ls := p.ListenStates()
	if len(ls) != 2 {
		t.Fatalf("listen states %+v", ls)
	}
	for _, st := range ls {
		if !st.Open() || !st.Moved || st.Want != s.SIP.Listen || portOf(st.Addr) == port || st.Err == "" {
			t.Fatalf("%s listener: %+v", st.Transport, st)
		}
	}
	if ls[0].Addr != ls[1].Addr {
		t.Errorf("UDP at %s and TCP at %s: the same free port was wanted for both", ls[0].Addr, ls[1].Addr)
	}
	if !testpeer.WaitFor(10*time.Second, func() bool {
		a := p.Accounts()
		return a[0].State == RegRegistered && a[1].State == RegRegistered
	}) {
		t.Fatalf("accounts %+v\n%s", p.Accounts(), kam.Log())
	}
	out, _ := exec.Command("kamcmd", "-s", "unix:"+filepath.Join(kam.Dir, "kamailio_ctl"), "ul.dump").CombinedOutput()
	if want := ":" + strconv.Itoa(portOf(ls[0].Addr)); !strings.Contains(string(out), want) {
		t.Errorf("kamailio's contacts do not name port %s:\n%s", want, out)
	}
}

// TestListenRefusedIsAState: a sip.listen address the system refuses
// (TEST-NET-1 is not this host's) opens no listener; the phone serves all
// the same and every account says why it cannot register.
func TestListenRefusedIsAState(t *testing.T) {
	acc := store.Account{ID: "3b0f4e51-6a43-4c7e-8d2a-1f9e8b7c6d5e", Username: "alice", Domain: "127.0.0.1", Port: 5060, Transport: "udp", Enabled: true}
	tcp := acc
	tcp.ID, tcp.Transport = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "tcp"
	p, err := New(Config{Settings: store.Settings{SIP: store.SIPSettings{Listen: "192.0.2.1:5060"}, Accounts: []store.Account{acc, tcp}},
		Secrets: secretMap{}, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	if !testpeer.WaitFor(5*time.Second, func() bool { return len(p.ListenStates()) == 2 }) {
		t.Fatal("phone did not start")
	}
	for _, st := range p.ListenStates() {
		if st.Open() || st.Moved || !strings.Contains(st.Err, "192.0.2.1") {
			t.Errorf("%s: %+v", st.Transport, st)
		}
	}
	if !testpeer.WaitFor(5*time.Second, func() bool {
		a := p.Accounts()
		return a[0].State == RegFailed && a[1].State == RegFailed
	}) {
		t.Fatalf("accounts %+v", p.Accounts())
	}
	for i, tr := range []string{"udp", "tcp"} {
		if c := p.Accounts()[i].Cause; !strings.HasPrefix(c, "no SIP listener for "+tr+": ") {
			t.Errorf("cause %q", c)
		}
	}
	if _, err := p.Dial(context.Background(), "bob", acc.ID); !errors.Is(err, ErrNoListener) {
		t.Errorf("dial without a listener: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("Serve returned %v while it should run", err)
	default:
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

// TestListenFallbackPrefersAlternatives: the TCP listener takes the UDP
// listener's port when the wanted one is taken; port 0 asked is no move.
func TestListenFallbackPrefersAlternatives(t *testing.T) {
	taken := holdPort(t)
	alt := testpeer.FreeTCPPort(t)
	l, st := listenTCP(context.Background(), "127.0.0.1:"+strconv.Itoa(taken), alt)
	if !st.Moved || portOf(st.Addr) != alt {
		t.Fatalf("%+v", st)
	}
	l.Close()
	l, st = listenTCP(context.Background(), "127.0.0.1:0")
	if st.Moved || !st.Open() || st.Err != "" {
		t.Fatalf("%+v", st)
	}
	l.Close()
	if _, st := listenTCP(context.Background(), "no port"); st.Open() || st.Err == "" {
		t.Fatalf("%+v", st)
	}
}
