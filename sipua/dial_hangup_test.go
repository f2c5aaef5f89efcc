package sipua

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestHangupWhileTheInviteConnects: an account over TCP whose server
// swallows the connection attempt (down behind a firewall, a VPN gone):
// the call being placed can be hung up at once, and ends cancelled. The
// INVITE's connection attempt (up to sipgo's 1 min dial timeout) ran on
// the call's goroutine, so Hang up (the page's button, the API's request,
// the phone's stop) waited that minute with the call card on "dialing".
func TestHangupWhileTheInviteConnects(t *testing.T) {
	testpeer.Require(t, "iptables")
	port := testpeer.FreeUDPPort(t) // nothing listens on its TCP port either
	rule := []string{"INPUT", "-p", "tcp", "--dport", itoa(port), "-j", "DROP"}
	if out, err := exec.Command("iptables", append([]string{"-A"}, rule...)...).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("iptables (the test runs in its own network namespace as root): %v %s", err, out)
		}
		t.Skipf("iptables: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("iptables", append([]string{"-D"}, rule...)...).Run() })
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: port, Transport: "tcp", Enabled: true}
	p := startPhone(t, acc, "")
	dialled := make(chan error, 1)
	go func() { _, err := p.Dial(bg, "bob", ""); dialled <- err }()
	c := p.waitState("", StateDialing, 5*time.Second)
	hung := make(chan error, 1)
	go func() { hung <- p.Hangup(bg, c.ID) }()
	select {
	case err := <-hung:
		if err != nil {
			t.Fatalf("hangup: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hangup still waits for the INVITE's connection")
	}
	if end := p.waitState(c.ID, StateEnded, 5*time.Second); end.Reason != ReasonCancelled {
		t.Fatalf("ended %+v", end)
	}
	select {
	case <-dialled:
	case <-time.After(5 * time.Second):
		t.Fatal("Dial still waits after the hangup")
	}
}
