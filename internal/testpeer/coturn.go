package testpeer

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Coturn runs coturn as a STUN-only server (RFC 8489) on ip:port, started
// through prefix (e.g. "ip netns exec NS"; nil: here); it stops when the
// test ends. ip "" is 127.0.0.1, port 0 a free one (looked up here).
func Coturn(t testing.TB, prefix []string, ip string, port int) int {
	t.Helper()
	Require(t, "turnserver")
	if ip == "" {
		ip = "127.0.0.1"
	}
	if port == 0 {
		port = FreeUDPPort(t)
	}
	dir := t.TempDir()
	args := append(append([]string{}, prefix...), "turnserver", "-n", "--stun-only", "--listening-ip="+ip,
		"--listening-port="+itoa(port), "--no-cli", "--no-tls", "--no-dtls", "--userdb="+filepath.Join(dir, "turndb"),
		"--pidfile="+filepath.Join(dir, "turn.pid"), "--log-file=stdout", "--simple-log")
	start(t, exec.Command(args[0], args[1:]...), filepath.Join(dir, "turn.log"))
	ok := WaitFor(10*time.Second, func() bool {
		return fileContains(filepath.Join(dir, "turn.log"), "Total General servers") ||
			fileContains(filepath.Join(dir, "turn.log"), "IPv4. UDP listener opened on")
	})
	if !ok {
		t.Fatalf("coturn did not start on %s:%d", ip, port)
	}
	return port
}
