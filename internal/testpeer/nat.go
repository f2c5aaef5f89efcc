package testpeer

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// NAT is a home router made of network namespaces (the recipe of the
// harness's nat/nat.sh, with the test's own namespace as the inside):
//
//	this namespace  10.0.0.2/24 (veth), 203.0.113.0/24 via 10.0.0.1   the phone
//	router          10.0.0.1 + 203.0.113.1, iptables MASQUERADE
//	outside         203.0.113.2/24, no route back to 10/8             PBX, peers, STUN
//
// Only documentation/private addresses; no default route is added here, so
// nothing is routed anywhere but to the outside namespace. The namespaces
// and what runs in them go when the test ends.
type NAT struct {
	Router, Outside string // namespace names
	InsideIP        string // 10.0.0.2
	PublicIP        string // the router's outside address, 203.0.113.1
	OutsideIP       string // 203.0.113.2
}

// In is the command prefix that runs a program in the outside namespace.
func (n *NAT) In() []string { return []string{"ip", "netns", "exec", n.Outside} }

// StartNAT builds the NAT. The test's network namespace must hold nothing
// but loopback (the test command runs the tests inside `unshare -n`): a
// veth and a route are added to it.
func StartNAT(t testing.TB) *NAT {
	t.Helper()
	Require(t, "ip", "iptables")
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the NAT test needs a namespace with loopback only (unshare -n); found %s", i.Name)
			}
			t.Skipf("the NAT test needs a namespace with loopback only (unshare -n); found %s", i.Name)
		}
	}
	p := fmt.Sprintf("sp%d-", os.Getpid())
	n := &NAT{Router: p + "router", Outside: p + "outside", InsideIP: "10.0.0.2", PublicIP: "203.0.113.1", OutsideIP: "203.0.113.2"}
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() {
		for _, ns := range []string{n.Outside, n.Router} {
			if out, _ := exec.Command("ip", "netns", "pids", ns).Output(); len(out) > 0 {
				for _, pid := range strings.Fields(string(out)) {
					_ = exec.Command("kill", "-9", pid).Run()
				}
			}
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
		_ = exec.Command("ip", "link", "del", "nat-i0").Run()
	})
	run("ip", "netns", "add", n.Router)
	run("ip", "netns", "add", n.Outside)
	for _, ns := range []string{n.Router, n.Outside} {
		run("ip", "-n", ns, "link", "set", "lo", "up")
	}
	// Each veth is made in its namespaces directly (nat.sh's rule).
	run("ip", "link", "add", "nat-i0", "type", "veth", "peer", "name", "r-in", "netns", n.Router)
	run("ip", "-n", n.Router, "link", "add", "r-out", "type", "veth", "peer", "name", "o0", "netns", n.Outside)
	run("ip", "addr", "add", n.InsideIP+"/24", "dev", "nat-i0")
	run("ip", "-n", n.Router, "addr", "add", "10.0.0.1/24", "dev", "r-in")
	run("ip", "-n", n.Router, "addr", "add", n.PublicIP+"/24", "dev", "r-out")
	run("ip", "-n", n.Outside, "addr", "add", n.OutsideIP+"/24", "dev", "o0")
	run("ip", "link", "set", "nat-i0", "up")
	run("ip", "-n", n.Router, "link", "set", "r-in", "up")
	run("ip", "-n", n.Router, "link", "set", "r-out", "up")
	run("ip", "-n", n.Outside, "link", "set", "o0", "up")
	run("ip", "route", "add", "203.0.113.0/24", "via", "10.0.0.1")
	rt := []string{"ip", "netns", "exec", n.Router}
	run(append(rt, "sysctl", "-qw", "net.ipv4.ip_forward=1")...)
	run(append(rt, "iptables", "-t", "nat", "-A", "POSTROUTING", "-s", "10.0.0.0/24", "-o", "r-out", "-j", "MASQUERADE")...)
	// The outside may answer, never open anything toward the inside.
	run(append(rt, "iptables", "-A", "FORWARD", "-i", "r-out", "-o", "r-in", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT")...)
	run(append(rt, "iptables", "-A", "FORWARD", "-i", "r-out", "-o", "r-in", "-j", "DROP")...)
	// Unsolicited packets to the public address are dropped before
	// conntrack keeps them: a kept entry (the far end's first RTP, sent
	// before ours) would make MASQUERADE pick another port for our stream
	// (the harness lessons: one-way audio).
	run(append(rt, "iptables", "-A", "INPUT", "-i", "r-out", "-m", "conntrack", "--ctstate", "NEW", "-j", "DROP")...)
	if !WaitFor(5*time.Second, func() bool {
		out, _ := exec.Command("ip", "-br", "link", "show", "nat-i0").Output()
		o2, _ := exec.Command("ip", "-n", n.Router, "-br", "link").Output()
		return !strings.Contains(string(out)+string(o2), " DOWN ")
	}) {
		t.Fatal("NAT links did not come up")
	}
	return n
}

// ListeningIn reports whether something listens on ip:port ("udp" or
// "tcp") in the network namespace that prefix (e.g. NAT.In()) runs in.
func ListeningIn(prefix []string, proto, ip string, port int) bool {
	if len(prefix) == 0 {
		b, err := os.ReadFile("/proc/net/" + proto)
		return err == nil && listeningIn(string(b), proto, ip, port)
	}
	args := append(append([]string{}, prefix...), "cat", "/proc/net/"+proto)
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		return false
	}
	return listeningIn(string(out), proto, ip, port)
}

func listeningIn(table, proto, ip string, port int) bool {
	v4 := net.ParseIP(ip).To4()
	if v4 == nil {
		return false
	}
	want := fmt.Sprintf("%02X%02X%02X%02X:%04X", v4[3], v4[2], v4[1], v4[0], port)
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[1] != want {
			continue
		}
		if proto == "udp" || f[3] == "0A" { // 0A = TCP LISTEN
			return true
		}
	}
	return false
}

// Renumber gives the router another public address, as a home router
// gets after a reconnect: MASQUERADE forgets its mappings with the old
// address (the kernel drops them when the address goes), so every flow
// from the inside leaves from the new one.
func (n *NAT) Renumber(t testing.TB, ip string) {
	t.Helper()
	for _, args := range [][]string{
		{"ip", "-n", n.Router, "addr", "del", n.PublicIP + "/24", "dev", "r-out"},
		{"ip", "-n", n.Router, "addr", "add", ip + "/24", "dev", "r-out"},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	n.PublicIP = ip
}
